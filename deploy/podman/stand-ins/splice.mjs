// Joins two TCP connections both ways for the smoke run's forwarders (probe.mjs's stand-ins in the
// compose network, scripts/container-smoke/forward.mjs on the host), as a transparent proxy would:
//   - a half-close passes through: a FIN from one side ends the other side's writing only, so a
//     client that sends its last request and shuts down its writing (pg's Terminate, a QUIT) still
//     gets the answer, and the server's own FIN reaches the client when it closes;
//   - a reset or an error on one side destroys the other, so neither waits for a peer that is gone.
// Both sockets must be made with allowHalfOpen: true (else node ends the writing side by itself).
export function splice(a, b) {
  a.pipe(b);
  b.pipe(a);
  const destroyBoth = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', destroyBoth);
  b.on('error', destroyBoth);
  // Once one side is fully closed, nothing more can pass: close the other (no half-open leftovers).
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
}
