// The bare baseline of `pnpm bench voice`, run as its own process: a WebSocket server that does what a
// media server must at the least and nothing more. Each stream sends and receives 20 ms frames as Twilio
// does; a `ping` from the client is answered by a frame on the next tick of one shared 20 ms clock. Its
// ping-to-frame time is the floor of "an event arrives → the first frame of the answer goes out" on this
// stack (Node, ws, JSON, the frame grid), under the same number of streams as the media server.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const FRAME_MS = 20;
const silence = Buffer.alloc(160, 0xff).toString('base64');
const streams = new Map<WebSocket, { pending: string[] }>();
const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });

wss.on('connection', (socket) => {
  const state = { pending: [] as string[] };
  streams.set(socket, state);
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { event: string; ping?: string };
    if (message.event === 'ping' && message.ping) state.pending.push(message.ping);
  });
  socket.on('close', () => streams.delete(socket));
});

const started = performance.now();
let ticks = 0;
let frames = 0;
let framesLate = 0;
function tick() {
  ticks += 1;
  const late = performance.now() - (started + ticks * FRAME_MS);
  frames += streams.size;
  if (late > 40) framesLate += streams.size;
  for (const [socket, state] of streams) {
    const ping = state.pending.shift();
    socket.send(
      JSON.stringify({ event: 'media', media: { payload: silence }, ...(ping ? { pong: ping } : {}) }),
    );
  }
  setTimeout(tick, Math.max(0, started + (ticks + 1) * FRAME_MS - performance.now()));
}
setTimeout(tick, FRAME_MS);

// Asked to stop: how many frames went out more than 40 ms after their slot.
process.on('SIGTERM', () => {
  console.log(JSON.stringify({ frames, framesLate }));
  process.exit(0);
});

wss.on('listening', () => {
  console.log(JSON.stringify({ port: (wss.address() as AddressInfo).port }));
});
