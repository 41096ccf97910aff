import { Link } from 'react-router';

export function NotFoundPage({ what = 'page' }: { what?: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <p>This {what} does not exist, or it belongs to another account.</p>
      <p>
        <Link to="/calls">Back to calls</Link>
      </p>
    </section>
  );
}
