import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, type Outputs } from '../api';

type Campaign = Outputs['campaigns']['get'];
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'finished';

export const FINISHED = ['completed', 'canceled'];
/** While the stream is down the page reads the campaign this often. */
export const POLL_MS = 5_000;
const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 30_000;

/**
 * A campaign kept current: pushed by the api's update stream (a tRPC subscription over server-sent
 * events) and, whenever the stream is down, read every five seconds while the stream is opened again
 * after 1, 2, 4 … up to 30 seconds (with jitter).
 */
export function useLiveCampaign(campaignId: string) {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveState>('connecting');
  const campaign = useQuery({
    queryKey: ['campaigns.get', campaignId],
    queryFn: () => api.campaigns.get.query({ campaign_id: campaignId }),
    refetchInterval: live === 'reconnecting' ? POLL_MS : false,
  });

  // A campaign read while the stream is down may be the finished one.
  const polled = live === 'reconnecting' ? campaign.data : undefined;
  useEffect(() => {
    if (polled && FINISHED.includes(polled.status)) setLive('finished');
  }, [polled]);

  useEffect(() => {
    let stopped = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let subscription: { unsubscribe(): void } | undefined;
    // Each stream opened has its number: a callback of one given up on is ignored.
    let current = 0;
    const retry = () => {
      current += 1;
      subscription?.unsubscribe();
      if (stopped) return;
      setLive('reconnecting');
      const delay = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures) * (0.75 + Math.random() / 4);
      failures += 1;
      clearTimeout(timer);
      timer = setTimeout(connect, delay);
    };
    const connect = () => {
      const mine = ++current;
      const ours =
        <A extends unknown[]>(handle: (...args: A) => void) =>
        (...args: A) => {
          if (mine === current && !stopped) handle(...args);
        };
      subscription = api.campaigns.watch.subscribe(
        { campaign_id: campaignId },
        {
          onData: ours(({ campaign: next }: { campaign: Campaign }) => {
            failures = 0;
            queryClient.setQueryData(['campaigns.get', campaignId], next);
            setLive(FINISHED.includes(next.status) ? 'finished' : 'live');
          }),
          // The link's own reconnection counts as down until the stream sends again.
          onConnectionStateChange: ours((state: { state: string; error: unknown }) => {
            if (state.state === 'connecting' && state.error) setLive('reconnecting');
          }),
          onError: ours(retry),
          onComplete: ours(() => {
            const last = queryClient.getQueryData<Campaign>(['campaigns.get', campaignId]);
            if (last && FINISHED.includes(last.status)) setLive('finished');
            else retry();
          }),
        },
      );
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      subscription?.unsubscribe();
    };
  }, [campaignId, queryClient]);

  return { campaign, live };
}

export const LIVE_LABELS: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: `Live updates interrupted: reconnecting, and refreshing every ${POLL_MS / 1000} s meanwhile`,
  finished: 'Finished',
};
