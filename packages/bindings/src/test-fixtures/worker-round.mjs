// One round of calls that work without a GPU, as text: the same answer on
// every JS thread of one process (worker-threads.test.ts).
export function round(b) {
  const out = [];
  const call = (name, f) => {
    try {
      out.push(`${name}=${JSON.stringify(f())}`);
    } catch (e) {
      out.push(`${name}!${e.name}:${e.codeName ?? e.libraryName ?? ''}`);
    }
  };
  call('driverVersion', () => b.driver.cuDriverGetVersion());
  call('cuInit', () => b.driver.cuInit(0));
  call('nvrtcVersion', () => b.nvrtc.nvrtcVersion());
  call('nvvmVersion', () => b.nvvm.nvvmVersion());
  call('badArgument', () => b.driver.cuDeviceGet('x'));
  return out.join(' ');
}
