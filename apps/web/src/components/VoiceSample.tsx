import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../api';
import { ErrorMessage } from './Messages';

/** The audio of a base64 WAV as an object URL the page's player may load (CSP: media-src blob:). */
function audioUrl(base64: string, type: string): string {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  return URL.createObjectURL(new Blob([bytes], { type }));
}

/**
 * Plays the chosen voice saying a short sentence in the chosen language, spoken by the deployment's
 * own text-to-speech (what callers will hear). The api synthesises each voice and language once.
 */
export function VoiceSample({ voice, language }: { voice: string; language: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const sample = useMutation({
    mutationFn: () => api.voices.sample.query({ voice, language }),
    onSuccess: (result) => setUrl(audioUrl(result.audio_base64, result.content_type)),
  });
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  return (
    <div className="field voice-sample">
      <button
        type="button"
        className="secondary"
        disabled={!voice || sample.isPending}
        onClick={() => sample.mutate()}
      >
        {sample.isPending ? 'Loading sample…' : 'Play sample'}
      </button>
      {url && (
        <audio controls autoPlay src={url} aria-label={`${voice} saying: ${sample.data?.text ?? ''}`} />
      )}
      <ErrorMessage error={sample.error} />
    </div>
  );
}
