export interface ApiResponse {
  status: number;
  /** The parsed body, or undefined when it was not JSON. */
  json: unknown;
  text: string;
  contentType: string | null;
}

/** One request to the api. Network failures and timeouts throw (a test decides what they mean). */
export async function callApi(
  baseUrl: string,
  path: string,
  {
    method = 'GET',
    key,
    body,
    headers = {},
    timeoutMs = 15_000,
  }: {
    method?: string;
    key?: string;
    body?: unknown;
    headers?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<ApiResponse> {
  const sent: Record<string, string> = { ...headers };
  if (key) sent.authorization = `Bearer ${key}`;
  if (body !== undefined) sent['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, contentType: response.headers.get('content-type') };
}
