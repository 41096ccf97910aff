import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, fieldError, type Outputs } from '../api';
import { Field } from '../components/Field';
import { ErrorMessage, Pending } from '../components/Messages';
import { formatTime } from '../format';

type KnowledgeBase = Outputs['knowledge']['list'][number];

/** A file as base64, for the upload. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

function KnowledgeBaseSection({ base }: { base: KnowledgeBase }) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['knowledge.list'] });
  const [question, setQuestion] = useState('');
  const upload = useMutation({
    mutationFn: async (file: File) =>
      api.knowledge.addDocument.mutate({
        knowledge_base_id: base.id,
        name: file.name,
        content_type: file.type,
        data_base64: await base64Of(file),
      }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (documentId: string) =>
      api.knowledge.deleteDocument.mutate({ knowledge_base_id: base.id, document_id: documentId }),
    onSuccess: refresh,
  });
  const search = useMutation({
    mutationFn: () => api.knowledge.search.query({ knowledge_base_ids: [base.id], query: question }),
  });
  return (
    <section className="knowledge-base" aria-label={`Knowledge base ${base.name}`}>
      <h2 dir="auto">{base.name}</h2>
      <p className="hint">
        Language {base.language} (searched with PostgreSQL’s {base.search_config} text search)
      </p>
      {base.documents.length === 0 ? (
        <p>No documents yet.</p>
      ) : (
        <table className="cards">
          <thead>
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Type</th>
              <th scope="col">Passages</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Delete</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {base.documents.map((document) => (
              <tr key={document.id}>
                <td data-label="Document" dir="auto">
                  {document.name}
                </td>
                <td data-label="Type">{document.content_type}</td>
                <td data-label="Passages">{document.passages}</td>
                <td data-label="Added">{formatTime(document.created_at)}</td>
                <td data-label="Delete">
                  <button type="button" className="link" onClick={() => remove.mutate(document.id)}>
                    Delete<span className="visually-hidden"> {document.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <label className="button secondary">
        Upload a document (text, Markdown, HTML or PDF, up to 700 KB)
        <input
          type="file"
          className="visually-hidden"
          accept=".txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) upload.mutate(file);
            event.target.value = '';
          }}
        />
      </label>
      {upload.isPending && <p role="status">Uploading…</p>}
      {upload.isSuccess && <p role="status">Added: {upload.data.passages} passage(s).</p>}
      <ErrorMessage error={upload.error ?? remove.error} />
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (question.trim()) search.mutate();
        }}
      >
        <label>
          Try a question{' '}
          <input dir="auto" value={question} onChange={(event) => setQuestion(event.target.value)} />
        </label>
        <button type="submit" className="secondary">
          Search
        </button>
      </form>
      {search.data && (
        <ol aria-label="Passages found">
          {search.data.length === 0 ? <li>Nothing relevant: the agent says it does not know.</li> : null}
          {search.data.map((passage, index) => (
            <li key={index} dir="auto">
              <pre>{passage}</pre>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The account's knowledge bases: what flows' knowledge nodes and prompt agents answer from. */
export function KnowledgeBasesPage() {
  const queryClient = useQueryClient();
  const bases = useQuery({ queryKey: ['knowledge.list'], queryFn: () => api.knowledge.list.query() });
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en');
  const create = useMutation({
    mutationFn: () => api.knowledge.create.mutate({ name, language }),
    onSuccess: () => {
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['knowledge.list'] });
    },
  });
  return (
    <section>
      <h1>Knowledge bases</h1>
      <form
        className="form inline-form"
        aria-label="New knowledge base"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Field
          label="Name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <Field
          label="Language"
          hint="Its documents' language: en, he, es…"
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
          error={fieldError(create.error, 'language')}
        />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Create knowledge base
          </button>
        </div>
      </form>
      {!bases.data ? (
        <Pending query={bases} />
      ) : (
        bases.data.map((base) => <KnowledgeBaseSection key={base.id} base={base} />)
      )}
    </section>
  );
}
