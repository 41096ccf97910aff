import { useQuery } from '@tanstack/react-query';
import { applyTranscriptEvent, startWebCall, type TranscriptLine, type WebCall } from '@voice/web-call';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api, errorMessage } from '../api';
import { ErrorMessage } from './Messages';

type Phase = 'idle' | 'starting' | 'connected' | 'ended';

/**
 * "Talk to this agent": a web call from this page (the microphone to the agent, the agent to the
 * speakers), with the conversation's transcript as it is heard, a hang-up, and at the end a link to the
 * call's page. The media server must be reachable from the browser (docs/dashboard.md).
 */
export function TalkToAgent({
  agentId,
  create = () => api.calls.createWeb.mutate({ agent_id: agentId }),
  label = 'Talk to this agent',
}: {
  agentId: string;
  /** Creates the web call (the flow builder's runs the draft on its canvas). */
  create?: () => Promise<{ call_id: string; access_token: string }>;
  label?: string;
}) {
  const endpoint = useQuery({ queryKey: ['calls.webCallUrl'], queryFn: () => api.calls.webCallUrl.query() });
  const [phase, setPhase] = useState<Phase>('idle');
  const [callId, setCallId] = useState<string | null>(null);
  const [said, setSaid] = useState<TranscriptLine[]>([]);
  const [agentSpeaking, setAgentSpeaking] = useState(false);
  const [heardMs, setHeardMs] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [endReason, setEndReason] = useState<string | null>(null);
  const call = useRef<WebCall | null>(null);

  // Leaving the page hangs up.
  useEffect(() => () => call.current?.hangUp(), []);
  useEffect(() => {
    if (phase !== 'connected') return;
    const timer = setInterval(() => setHeardMs(call.current?.stats().agentLoudMs ?? 0), 250);
    return () => clearInterval(timer);
  }, [phase]);

  async function start() {
    const url = endpoint.data?.url;
    if (!url) return;
    setPhase('starting');
    setSaid([]);
    setError(null);
    setEndReason(null);
    setHeardMs(0);
    setCallId(null);
    // The microphone first: the call is created only once it is allowed and the audio is ready. The
    // worklet comes from the api's origin: the dashboard's policy allows no `blob:` scripts.
    const started = startWebCall({
      url,
      accessToken: async () => {
        try {
          const created = await create();
          setCallId(created.call_id);
          return created.access_token;
        } catch (failure) {
          throw new Error(errorMessage(failure));
        }
      },
      workletUrl: '/app/web-call-worklet.js',
    });
    call.current = started;
    started.on((event) => {
      if (event.type === 'connected') setPhase('connected');
      else if (event.type === 'transcript') setSaid((before) => applyTranscriptEvent(before, event));
      else if (event.type === 'agent_speaking') setAgentSpeaking(event.speaking);
      else if (event.type === 'error') setError(event.message);
      else if (event.type === 'ended') {
        setHeardMs(started.stats().agentLoudMs);
        setEndReason(event.reason);
        setAgentSpeaking(false);
        setPhase('ended');
      }
    });
  }

  if (endpoint.isSuccess && !endpoint.data.url)
    return <p>Web calls need the media server's public URL (MEDIA_PUBLIC_URL) ending in /media/twilio.</p>;
  return (
    <section className="talk" aria-label={label}>
      {phase === 'idle' || phase === 'ended' ? (
        <button type="button" onClick={() => void start()} disabled={!endpoint.data?.url}>
          {label}
        </button>
      ) : (
        <button type="button" className="danger" onClick={() => call.current?.hangUp()}>
          Hang up
        </button>
      )}
      <p role="status">
        {phase === 'starting' && 'Connecting…'}
        {phase === 'connected' &&
          (agentSpeaking ? 'Connected: the agent is speaking' : 'Connected: listening')}
        {phase === 'ended' && (callId ? `Call ended (${endReason})` : 'No call was made')}
        {phase !== 'idle' && ` · heard ${(heardMs / 1000).toFixed(1)} s of the agent`}
      </p>
      {phase === 'connected' && <Keypad press={(key) => call.current?.pressKey(key)} />}
      <ErrorMessage error={error} />
      {said.length > 0 && (
        <ol className="live-transcript" aria-label="Live transcript">
          {said.map((entry, index) => (
            <li key={index} className={entry.role}>
              <span className="who">{entry.role === 'agent' ? 'Agent' : 'You'}</span>{' '}
              <span dir="auto">{entry.content}</span>
            </li>
          ))}
        </ol>
      )}
      {phase === 'ended' && callId && <Link to={`/calls/${callId}`}>Open the call</Link>}
    </section>
  );
}

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

/** A phone's keypad: each key sent as the call's DTMF; `#` ends an entry, as on a phone. */
function Keypad({ press }: { press: (key: string) => void }) {
  return (
    <div className="keypad" role="group" aria-label="Keypad">
      {KEYS.map((key) => (
        <button key={key} type="button" className="secondary" onClick={() => press(key)}>
          {key}
        </button>
      ))}
    </div>
  );
}
