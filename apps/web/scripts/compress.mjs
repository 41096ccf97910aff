// Writes a Brotli (.br) and a gzip (.gz) copy beside every text asset of dist/, which the api serves to
// browsers that accept them (@fastify/static's preCompressed), so nothing is compressed per request.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TEXT = /\.(js|css|html|svg|json)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

let raw = 0;
let brotli = 0;
for (const path of files('dist')) {
  const body = readFileSync(path);
  const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  if (path.endsWith('.js')) {
    raw += body.length;
    brotli += br.length;
  }
}
console.log(`JavaScript: ${(raw / 1024).toFixed(1)} KB, ${(brotli / 1024).toFixed(1)} KB with Brotli`);
