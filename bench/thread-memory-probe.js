'use strict';
// Bench tool (bench/README.md): loaded with `-r` into the service, and so into each of its threads;
// every 500 ms appends one JSON line per thread to MEM_PROBE_FILE: the process RSS, the thread's heap, external
// memory and each V8 heap space (size/used, MB). Without MEM_PROBE_FILE it does nothing.
const fs = require('node:fs');
const { setInterval } = require('node:timers');
const v8 = require('node:v8');
const { isMainThread, threadId } = require('node:worker_threads');
const file = process.env.MEM_PROBE_FILE;
if (file) {
  const mb = (n) => Math.round((n / 1048576) * 10) / 10;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = [mb(s.space_size), mb(s.space_used_size)];
    const h = v8.getHeapStatistics();
    fs.appendFileSync(
      file,
      JSON.stringify({ t: Date.now(), thread: isMainThread ? 'main' : `w${threadId}`, rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers), malloced: mb(h.malloced_memory), peakMalloced: mb(h.peak_malloced_memory), spaces }) + '\n',
    );
  }, 500);
  timer.unref();
}
