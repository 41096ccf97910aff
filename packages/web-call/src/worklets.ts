/**
 * The two audio worklet processors a web call runs, as the source of one module (loaded from a Blob URL,
 * so the client needs no file of its own on the website's server). Both run at the AudioContext's rate,
 * which the client sets to the line's 16 kHz (the browser resamples the microphone and the speakers).
 *
 * - `voice-capture` turns the microphone's float samples into 16-bit PCM and posts 20 ms (320 samples)
 *   at a time, with the frame's level.
 * - `voice-playback` plays the agent's 16-bit PCM in order, without gaps: it starts a speech once 60 ms
 *   are queued (or 64 ms have passed), keeps playing while audio comes, and posts how many samples it
 *   has played (for the marks the media server asks to be echoed), whether it is idle, and how much of
 *   what it played was louder than silence (by 20 ms blocks). `clear` drops everything queued at once (barge-in).
 */
export const WORKLET_SOURCE = `
const FRAME = 320;
class VoiceCapture extends AudioWorkletProcessor {
  constructor() { super(); this.frame = new Int16Array(FRAME); this.filled = 0; this.sum = 0; }
  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    for (let i = 0; i < input.length; i++) {
      const s = Math.max(-1, Math.min(1, input[i]));
      const v = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
      this.frame[this.filled++] = v;
      this.sum += v * v;
      if (this.filled === FRAME) {
        this.port.postMessage({ pcm: this.frame.buffer, rms: Math.sqrt(this.sum / FRAME) }, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME); this.filled = 0; this.sum = 0;
      }
    }
    return true;
  }
}
class VoicePlayback extends AudioWorkletProcessor {
  constructor() {
    super();
    this.queue = []; this.offset = 0; this.queued = 0; this.played = 0; this.loud = 0;
    this.block = 0; this.blockSum = 0;
    this.playing = false; this.waited = 0; this.reported = -1;
    this.port.onmessage = (event) => {
      if (event.data === 'clear') {
        this.queue = []; this.offset = 0; this.queued = 0; this.playing = false; this.waited = 0;
        this.port.postMessage({ cleared: true, played: this.played });
        return;
      }
      const samples = new Int16Array(event.data);
      this.queue.push(samples); this.queued += samples.length;
    };
  }
  process(_inputs, outputs) {
    const out = outputs[0][0];
    let i = 0;
    if (!this.playing && this.queued > 0) {
      this.waited += 1;
      if (this.queued >= 960 || this.waited >= 8) { this.playing = true; this.waited = 0; }
    }
    if (this.playing) {
      while (i < out.length && this.queue.length > 0) {
        const head = this.queue[0];
        const n = Math.min(out.length - i, head.length - this.offset);
        for (let k = 0; k < n; k++) {
          const v = head[this.offset + k];
          out[i + k] = v / 0x8000;
          this.blockSum += v * v;
          if (++this.block === FRAME) {
            if (Math.sqrt(this.blockSum / FRAME) > 300) this.loud += FRAME;
            this.block = 0; this.blockSum = 0;
          }
        }
        i += n; this.offset += n; this.played += n; this.queued -= n;
        if (this.offset === head.length) { this.queue.shift(); this.offset = 0; }
      }
      if (this.queue.length === 0) this.playing = false;
    }
    for (; i < out.length; i++) out[i] = 0;
    if (this.played !== this.reported && (this.played - this.reported >= FRAME || !this.playing)) {
      this.reported = this.played;
      this.port.postMessage({ played: this.played, loud: this.loud, idle: !this.playing });
    }
    return true;
  }
}
registerProcessor('voice-capture', VoiceCapture);
registerProcessor('voice-playback', VoicePlayback);
`;
