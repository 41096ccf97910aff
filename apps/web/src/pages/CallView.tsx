import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage, type Outputs } from '../api';
import { TERMINAL_STATUSES } from '@voice/core/schemas';
import { ConfirmButton } from '../components/ConfirmButton';
import {
  callStatusLabel,
  endedBecause,
  formatDuration,
  formatMoney,
  formatPreciseTime,
  formatTime,
  humanize,
} from '../format';
import { CallAnalysis } from '../components/CallAnalysis';
import { DataTable } from '../components/DataTable';
import { ErrorMessage, Pending } from '../components/Messages';
import { CallFunctionCalls } from '../components/FunctionCalls';
import { LatencyBars } from '../components/LatencyBars';

type Delivery = Outputs['webhooks']['deliveries']['list'][number];

function Variables({ title, values }: { title: string; values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  return (
    <div className="card">
      <h2>{title}</h2>
      {entries.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <dl className="details">
          {entries.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd dir="auto">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

/**
 * The recording's signed link on this origin: the api serves /recordings itself, and the page may only
 * load media from where it came from (its content security policy).
 */
function sameOrigin(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return `${parsed.pathname}${parsed.search}`;
}

/** One webhook delivery: its attempts on demand, and a redeliver button. */
function DeliveryRow({ delivery }: { delivery: Delivery }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const detail = useQuery({
    queryKey: ['webhooks.deliveries.get', delivery.delivery_id],
    queryFn: () => api.webhooks.deliveries.get.query({ delivery_id: delivery.delivery_id }),
    enabled: open,
  });
  const redeliver = useMutation({
    mutationFn: () => api.webhooks.deliveries.redeliver.mutate({ delivery_id: delivery.delivery_id }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['webhooks.deliveries.list'] }),
  });
  return (
    <li className="delivery">
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          {delivery.event_type} → {delivery.url} ·{' '}
          <span className={`status status-${delivery.status}`}>{delivery.status}</span> ·{' '}
          {delivery.attempt_count} attempt{delivery.attempt_count === 1 ? '' : 's'} ·{' '}
          {formatTime(delivery.created_at)}
        </summary>
        {detail.data && (
          <table>
            <caption className="visually-hidden">Attempts</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Sent</th>
                <th scope="col">Answer</th>
                <th scope="col">Latency</th>
              </tr>
            </thead>
            <tbody>
              {detail.data.attempts.map((attempt) => (
                <tr key={attempt.number}>
                  <td>{attempt.number}</td>
                  <td>{formatTime(attempt.started_at)}</td>
                  <td>{attempt.status_code ?? attempt.error ?? '—'}</td>
                  <td>{attempt.latency_ms === null ? '—' : `${attempt.latency_ms} ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
      <button
        type="button"
        className="secondary"
        onClick={() => redeliver.mutate()}
        disabled={redeliver.isPending}
      >
        Redeliver
      </button>
      {redeliver.isSuccess && <span role="status"> Sent again.</span>}
      {redeliver.isError && (
        <span role="alert" className="error">
          {' '}
          {errorMessage(redeliver.error)}
        </span>
      )}
    </li>
  );
}

/** What the call cost, part by part, once it ended (docs/operations.md, "Call cost"). */
function CallCostParts({ callId, status }: { callId: string; status: string }) {
  const cost = useQuery({
    queryKey: ['calls.cost', callId, status],
    queryFn: () => api.calls.cost.query({ call_id: callId }),
  });
  const parts = cost.data?.cost;
  if (!parts) return <ErrorMessage error={cost.error} />;
  const money = (value: number) => formatMoney(value, parts.currency);
  const rows: [string, number, string][] = [
    ['Carrier', parts.carrier, `${parts.carrier_minutes} min`],
    ['Speech to text', parts.stt, `${parts.stt_seconds} s of audio`],
    ['Language model', parts.llm, `${parts.llm_input_tokens} tokens in, ${parts.llm_output_tokens} out`],
    ['Speech synthesis', parts.tts, `${parts.tts_characters} characters`],
  ];
  return (
    <>
      <h2>
        Cost <span data-testid="call-cost">{money(parts.combined_cost)}</span>
      </h2>
      <DataTable
        caption="Cost by part"
        rows={rows}
        rowKey={([part]) => part}
        columns={[
          { header: 'Part', cell: ([part]) => part },
          { header: 'Cost', cell: ([, value]) => money(value) },
          { header: 'Counted', cell: ([, , counted]) => counted },
        ]}
      />
    </>
  );
}

const TIMELINE_LABELS: Record<Outputs['calls']['timeline']['events'][number]['event'], string> = {
  created: 'Created',
  dial_sent: 'Dial sent to the carrier',
  ringing: 'Ringing',
  answered: 'Answered',
  media_started: 'Conversation started',
  conversation_stored: 'Conversation stored',
  ended: 'Ended',
};

const TURN_LABELS: Record<Outputs['calls']['turnEvents'][number]['kind'], string> = {
  interruption: 'Caller interrupted',
  backchannel: 'Backchannel',
};

/**
 * What happened to the call, in order, at the carrier's and the service's times, with each interruption
 * and backchannel of its conversation placed among them.
 */
function Timeline({ callId, status }: { callId: string; status: string }) {
  // The status in the keys: a call that moves on shows its new steps, and its turns once stored.
  const timeline = useQuery({
    queryKey: ['calls.timeline', callId, status],
    queryFn: () => api.calls.timeline.query({ call_id: callId }),
  });
  const turns = useQuery({
    queryKey: ['calls.turnEvents', callId, status],
    queryFn: () => api.calls.turnEvents.query({ call_id: callId }),
  });
  if (!timeline.data) return <ErrorMessage error={timeline.error} />;
  // A stable sort: a step and a turn at the same time keep the step first.
  const rows = [
    ...timeline.data.events.map((step) => ({ at: step.at, step, turn: null })),
    ...(turns.data ?? []).map((turn) => ({ at: turn.at, step: null, turn })),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <>
      <ol className="timeline">
        {rows.map(({ at, step, turn }, index) => (
          <li key={step ? step.event : `turn-${index}`} className={turn ? 'turn' : undefined}>
            <time dateTime={at}>{formatPreciseTime(at)}</time>{' '}
            {step && (
              <>
                <strong>{TIMELINE_LABELS[step.event]}</strong>
                {step.status && step.event === 'ended' ? ` · ${callStatusLabel(step.status)}` : ''}
                {step.detail ? ` · ${humanize(step.detail)}` : ''}
              </>
            )}
            {turn && (
              <>
                <strong>{TURN_LABELS[turn.kind]}</strong> · {formatDuration(turn.at_ms)} into the call
                {turn.text && (
                  <>
                    {' · '}
                    <q dir="auto">{turn.text}</q>
                  </>
                )}
              </>
            )}
          </li>
        ))}
      </ol>
      <ErrorMessage error={turns.error} />
    </>
  );
}

/** The campaign and contact a campaign's call was made for, linked back. */
function CampaignLinks({ callId }: { callId: string }) {
  const links = useQuery({
    queryKey: ['calls.campaign', callId],
    queryFn: () => api.calls.campaign.query({ call_id: callId }),
  });
  const { campaign, contact } = links.data ?? { campaign: null, contact: null };
  if (!campaign) return null;
  return (
    <>
      <div>
        <dt>Campaign</dt>
        <dd>
          <Link to={`/campaigns/${campaign.campaign_id}`}>{campaign.name}</Link>
        </dd>
      </div>
      {contact && (
        <div>
          <dt>Contact</dt>
          <dd>
            <Link to={`/campaigns/${campaign.campaign_id}#contact-${contact.contact_id}`}>
              #{contact.position} {contact.to_number}
            </Link>
            {contact.attempt !== null && `, attempt ${contact.attempt}`}
          </dd>
        </div>
      )}
    </>
  );
}

const ended = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

/**
 * A call in progress hung up by the operator: a phone call at its carrier, a web call on the media server
 * holding it; it ends as the agent hanging up (the page follows until it has).
 */
function HangUp({ callId, status }: { callId: string; status: string }) {
  const queryClient = useQueryClient();
  const hangUp = useMutation({
    mutationFn: () => api.calls.hangup.mutate({ call_id: callId }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['calls.get', callId] }),
  });
  if (ended(status)) return null;
  return (
    <>
      <button type="button" className="danger" onClick={() => hangUp.mutate()} disabled={hangUp.isPending}>
        Hang up
      </button>
      {hangUp.isSuccess && <span role="status"> Hanging up…</span>}
      <ErrorMessage error={hangUp.isError ? errorMessage(hangUp.error) : null} />
    </>
  );
}

/** A call: what was said, the recording, what was collected, its webhooks; deletion (dashboard only). */
export function CallPage() {
  const { callId = '' } = useParams();
  const navigate = useNavigate();
  const call = useQuery({
    queryKey: ['calls.get', callId],
    queryFn: () => api.calls.get.query({ call_id: callId }),
    // A call in progress is followed until it ends.
    refetchInterval: (query) => {
      const status = query.state.data?.call_status;
      return status && !ended(status) ? 1_000 : false;
    },
  });
  const cutEntries = useQuery({
    queryKey: ['calls.cutEntries', callId],
    queryFn: () => api.calls.cutEntries.query({ call_id: callId }),
    enabled: call.isSuccess,
  });
  const deliveries = useQuery({
    queryKey: ['webhooks.deliveries.list', callId],
    queryFn: () => api.webhooks.deliveries.list.query({ call_id: callId }),
    enabled: call.isSuccess,
  });
  const remove = useMutation({
    mutationFn: () => api.calls.delete.mutate({ call_id: callId }),
    onSuccess: () => void navigate('/calls', { replace: true }),
  });

  const recording = useRef<HTMLAudioElement>(null);
  // The recording's link is signed anew on every read of the call (a refetch on focus): the player keeps
  // the first, so a refetch never reloads it and loses its place.
  const [kept, setKept] = useState<{ callId: string; src: string } | null>(null);
  const signedUrl = call.data?.recording_url;
  useEffect(() => {
    if (signedUrl)
      setKept((last) => (last?.callId === callId ? last : { callId, src: sameOrigin(signedUrl) }));
  }, [callId, signedUrl]);
  const recordingSrc = kept?.callId === callId ? kept.src : null;
  /** Plays the recording from a transcript line's time. */
  const seek = (ms: number) => {
    const audio = recording.current;
    if (!audio) return;
    audio.currentTime = ms / 1000;
    void audio.play().catch(() => undefined);
  };

  const data = call.data;
  if (call.isError || !data) return <Pending query={call} />;
  return (
    <section>
      <p>
        <Link to="/calls">Calls</Link> /
      </p>
      <div className="page-head">
        <h1>
          {data.call_type === 'web_call' ? 'Web call' : `Call to ${data.to_number}`}
          <span className="visually-hidden"> ({data.call_id})</span>
        </h1>
        <span className={`status status-${data.call_status}`}>{callStatusLabel(data.call_status)}</span>
        <HangUp callId={callId} status={data.call_status} />
      </div>
      <dl className="details">
        <div>
          <dt>Started</dt>
          <dd>{formatTime(data.start_timestamp)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(data.duration_ms)}</dd>
        </div>
        <div>
          <dt>Direction</dt>
          <dd>{data.direction}</dd>
        </div>
        <div>
          <dt>Line</dt>
          <dd>{data.call_type === 'web_call' ? 'Web call (browser)' : 'Phone call'}</dd>
        </div>
        {data.call_type !== 'web_call' && (
          <div>
            <dt>From</dt>
            <dd>{data.from_number}</dd>
          </div>
        )}
        <div>
          <dt>Agent</dt>
          <dd>{data.agent ? `${data.agent.name} (v${data.agent.version})` : '—'}</dd>
        </div>
        <CampaignLinks callId={data.call_id} />
        <div>
          <dt>Ended because</dt>
          <dd>{endedBecause(data)}</dd>
        </div>
        {data.answered_by && (
          <div>
            <dt>Answered by</dt>
            <dd>
              {data.answered_by}
              {data.voicemail_left && ' (the agent left its message)'}
            </dd>
          </div>
        )}
      </dl>
      <CallAnalysis callId={data.call_id} status={data.call_status} />
      <CallCostParts callId={data.call_id} status={data.call_status} />
      <h2>Timeline</h2>
      <Timeline callId={data.call_id} status={data.call_status} />
      <h2>Recording</h2>
      {data.recording_url ? (
        <audio
          ref={recording}
          controls
          preload="metadata"
          src={recordingSrc ?? sameOrigin(data.recording_url)}
          aria-label="Call recording"
        />
      ) : (
        <p className="hint">No recording.</p>
      )}
      <h2>Transcript</h2>
      {data.transcript.length === 0 ? (
        <p className="hint">Nothing was said.</p>
      ) : (
        <ol className="transcript">
          {data.transcript.map((entry, index) => (
            <li key={index} className={`role-${entry.role}`}>
              <span className="who">
                {entry.role === 'system' ? 'System note' : humanize(entry.role)}{' '}
                {data.recording_url ? (
                  <button
                    type="button"
                    className="link"
                    aria-label={`Play the recording from ${formatDuration(entry.timestamp_ms)}`}
                    onClick={() => seek(entry.timestamp_ms)}
                  >
                    <small>{formatDuration(entry.timestamp_ms)}</small>
                  </button>
                ) : (
                  <small>{formatDuration(entry.timestamp_ms)}</small>
                )}
              </span>
              <span dir="auto">{entry.content}</span>
              {cutEntries.data?.includes(index) && (
                <small className="cut" title="The caller cut the agent short: this is what they heard">
                  cut
                </small>
              )}
            </li>
          ))}
        </ol>
      )}
      <CallFunctionCalls callId={data.call_id} />
      <LatencyBars callId={data.call_id} />
      <div className="cards">
        <Variables title="Variables provided" values={data.vars_provided} />
        <Variables title="Variables collected" values={data.vars_collected} />
      </div>
      <h2>Webhook deliveries</h2>
      {deliveries.data && deliveries.data.length === 0 && <p className="hint">No webhook deliveries.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <ul className="deliveries">
          {deliveries.data.map((delivery) => (
            <DeliveryRow key={delivery.delivery_id} delivery={delivery} />
          ))}
        </ul>
      )}
      <h2>Delete</h2>
      <p className="hint">Deleting removes the call, its transcript and its recording for good.</p>
      <ConfirmButton
        label="Delete call"
        question="Delete this call for good?"
        confirmLabel="Delete"
        onConfirm={() => remove.mutate()}
        disabled={remove.isPending}
      />
      <ErrorMessage error={remove.error} />
    </section>
  );
}
