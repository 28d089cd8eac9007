/* A stand-in for libnvidia-ml.so.1 for the tests of machines without an NVIDIA
 * driver: the NVML functions that @cuda-js/bindings declares, over two made-up
 * devices. It is written against NVML's documented ABI by byte offset, not
 * from the bindings' own declarations, so that a wrong layout there shows up
 * as wrong values in JS. It is strict where NVML is: calls before nvmlInit
 * fail with NVML_ERROR_UNINITIALIZED, a buffer shorter than the size NVML
 * guarantees is NVML_ERROR_INSUFFICIENT_SIZE, a struct version other than the
 * one it knows is NVML_ERROR_ARGUMENT_VERSION_MISMATCH, and a handle it did not
 * give out is NVML_ERROR_INVALID_ARGUMENT (where the real library could crash).
 *
 * Knobs, read at nvmlInit_v2: FAKE_NVML_INIT_RESULT=<code> makes nvmlInit_v2
 * fail with that code (9 is NVML_ERROR_DRIVER_NOT_LOADED); FAKE_NVML_DEVICES=<n>
 * shows only the first n devices (0 to 2).
 *
 * Built by tooling/test-support/fake-nvml.ts: gcc -shared -fPIC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int ret_t;
enum {
  OK = 0,
  UNINITIALIZED = 1,
  INVALID_ARGUMENT = 2,
  NOT_SUPPORTED = 3,
  INSUFFICIENT_SIZE = 7,
  VERSION_MISMATCH = 25,
};

struct fake_device {
  const char *name, *uuid, *bus_id, *bus_id_legacy;
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  unsigned long long total, reserved, used;
  unsigned gpu_util, mem_util;
  unsigned clocks[4], max_clocks[4]; /* graphics, SM, memory, video (MHz) */
  unsigned temperature;
  int power_supported;
  unsigned power_mw, limit_mw;
  int cc_major, cc_minor;
  unsigned nvlinks, nvlinks_active, nvlink_version; /* nvlinks 0: NvLink not supported */
};

static struct fake_device devices[2] = {
    {"Fake NVIDIA H200", "GPU-0f0e0d0c-1111-2222-3333-444455556666", "00000000:1D:00.0", "0000:1D:00.0", 0, 0x1D, 0, 0x233510DE, 0x16EB10DE,
     150754820096ULL, 512ULL << 20, 3ULL << 30, 37, 12, {1980, 1980, 3201, 1755}, {1980, 1980, 3201, 1755}, 41, 1, 123456, 700000, 9, 0, 18, 6,
     6},
    {"Fake NVIDIA A100", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeffff0000", "00000001:B2:1F.0", "0001:B2:1F.0", 1, 0xB2, 0x1F, 0x20B010DE, 0x134F10DE,
     42949672960ULL, 256ULL << 20, 0, 0, 0, {210, 210, 1215, 585}, {1410, 1410, 1215, 1290}, 33, 0, 0, 0, 8, 0, 0, 0, 0},
};

static int init_count = 0;
static unsigned visible = 2;
static int init_result = 0;

/* A marker that tests use to tell this library from the real one. */
int cudaJsFakeNvml = 1;

static struct fake_device *device_of(const void *handle) {
  for (unsigned i = 0; i < visible; i++)
    if (handle == &devices[i]) return &devices[i];
  return 0;
}

#define NEED_INIT() \
  if (init_count == 0) return UNINITIALIZED
#define DEVICE(d, handle)                  \
  NEED_INIT();                             \
  struct fake_device *d = device_of(handle); \
  if (!d) return INVALID_ARGUMENT

ret_t nvmlInit_v2(void) {
  const char *r = getenv("FAKE_NVML_INIT_RESULT");
  const char *n = getenv("FAKE_NVML_DEVICES");
  init_result = r ? atoi(r) : 0;
  if (init_result) return init_result;
  visible = n ? (unsigned)atoi(n) : 2;
  if (visible > 2) visible = 2;
  init_count++;
  return OK;
}

ret_t nvmlShutdown(void) {
  NEED_INIT();
  init_count--;
  return OK;
}

const char *nvmlErrorString(ret_t r) {
  switch (r) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 25: return "Argument version mismatch";
    default: return "Unknown Error";
  }
}

static ret_t copy_text(char *out, unsigned length, const char *text, unsigned guaranteed) {
  if (!out) return INVALID_ARGUMENT;
  if (length < guaranteed || length < strlen(text) + 1) return INSUFFICIENT_SIZE;
  strcpy(out, text);
  return OK;
}

ret_t nvmlSystemGetDriverVersion(char *version, unsigned length) {
  NEED_INIT();
  return copy_text(version, length, "580.65.06", 80);
}

ret_t nvmlSystemGetNVMLVersion(char *version, unsigned length) {
  NEED_INIT();
  return copy_text(version, length, "13.580.65.06", 80);
}

ret_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
  NEED_INIT();
  if (!v) return INVALID_ARGUMENT;
  *v = 13000;
  return OK;
}

ret_t nvmlDeviceGetCount_v2(unsigned *count) {
  NEED_INIT();
  if (!count) return INVALID_ARGUMENT;
  *count = visible;
  return OK;
}

ret_t nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device) {
  NEED_INIT();
  if (!device || index >= visible) return INVALID_ARGUMENT;
  *device = &devices[index];
  return OK;
}

ret_t nvmlDeviceGetName(void *handle, char *name, unsigned length) {
  DEVICE(d, handle);
  return copy_text(name, length, d->name, 96);
}

ret_t nvmlDeviceGetUUID(void *handle, char *uuid, unsigned length) {
  DEVICE(d, handle);
  return copy_text(uuid, length, d->uuid, 96);
}

static void put32(unsigned char *at, unsigned v) { memcpy(at, &v, 4); }
static void put64(unsigned char *at, unsigned long long v) { memcpy(at, &v, 8); }

/* nvmlMemory_t: total @0, free @8, used @16 (used includes the reserved amount). */
ret_t nvmlDeviceGetMemoryInfo(void *handle, void *memory) {
  DEVICE(d, handle);
  if (!memory) return INVALID_ARGUMENT;
  unsigned char *m = memory;
  put64(m + 0, d->total);
  put64(m + 8, d->total - d->reserved - d->used);
  put64(m + 16, d->reserved + d->used);
  return OK;
}

/* nvmlMemory_v2_t: version @0 (40 | 2 << 24), total @8, reserved @16, free @24, used @32. */
ret_t nvmlDeviceGetMemoryInfo_v2(void *handle, void *memory) {
  DEVICE(d, handle);
  if (!memory) return INVALID_ARGUMENT;
  unsigned char *m = memory;
  unsigned version;
  memcpy(&version, m, 4);
  if (version != (40u | (2u << 24))) return VERSION_MISMATCH;
  put64(m + 8, d->total);
  put64(m + 16, d->reserved);
  put64(m + 24, d->total - d->reserved - d->used);
  put64(m + 32, d->used);
  return OK;
}

/* nvmlUtilization_t: gpu @0, memory @4. */
ret_t nvmlDeviceGetUtilizationRates(void *handle, void *utilization) {
  DEVICE(d, handle);
  if (!utilization) return INVALID_ARGUMENT;
  put32((unsigned char *)utilization, d->gpu_util);
  put32((unsigned char *)utilization + 4, d->mem_util);
  return OK;
}

ret_t nvmlDeviceGetClockInfo(void *handle, int type, unsigned *clock) {
  DEVICE(d, handle);
  if (!clock || type < 0 || type > 3) return INVALID_ARGUMENT;
  *clock = d->clocks[type];
  return OK;
}

ret_t nvmlDeviceGetMaxClockInfo(void *handle, int type, unsigned *clock) {
  DEVICE(d, handle);
  if (!clock || type < 0 || type > 3) return INVALID_ARGUMENT;
  *clock = d->max_clocks[type];
  return OK;
}

ret_t nvmlDeviceGetTemperature(void *handle, int sensor, unsigned *temp) {
  DEVICE(d, handle);
  if (!temp || sensor != 0) return INVALID_ARGUMENT;
  *temp = d->temperature;
  return OK;
}

ret_t nvmlDeviceGetPowerUsage(void *handle, unsigned *power) {
  DEVICE(d, handle);
  if (!power) return INVALID_ARGUMENT;
  if (!d->power_supported) return NOT_SUPPORTED;
  *power = d->power_mw;
  return OK;
}

ret_t nvmlDeviceGetEnforcedPowerLimit(void *handle, unsigned *limit) {
  DEVICE(d, handle);
  if (!limit) return INVALID_ARGUMENT;
  if (!d->power_supported) return NOT_SUPPORTED;
  *limit = d->limit_mw;
  return OK;
}

/* nvmlPciInfo_t (v3): busIdLegacy[16] @0, domain @16, bus @20, device @24,
 * pciDeviceId @28, pciSubSystemId @32, busId[32] @36; 68 bytes. */
ret_t nvmlDeviceGetPciInfo_v3(void *handle, void *pci) {
  DEVICE(d, handle);
  if (!pci) return INVALID_ARGUMENT;
  unsigned char *p = pci;
  memset(p, 0, 68);
  strcpy((char *)p, d->bus_id_legacy);
  put32(p + 16, d->domain);
  put32(p + 20, d->bus);
  put32(p + 24, d->device);
  put32(p + 28, d->pci_device_id);
  put32(p + 32, d->pci_subsystem_id);
  strcpy((char *)p + 36, d->bus_id);
  return OK;
}

ret_t nvmlDeviceGetNvLinkState(void *handle, unsigned link, int *active) {
  DEVICE(d, handle);
  if (!active || link >= 18) return INVALID_ARGUMENT;
  if (!d->nvlinks) return NOT_SUPPORTED;
  if (link >= d->nvlinks) return INVALID_ARGUMENT;
  *active = link < d->nvlinks_active ? 1 : 0;
  return OK;
}

ret_t nvmlDeviceGetNvLinkVersion(void *handle, unsigned link, unsigned *version) {
  DEVICE(d, handle);
  if (!version || link >= 18) return INVALID_ARGUMENT;
  if (!d->nvlinks) return NOT_SUPPORTED;
  if (link >= d->nvlinks) return INVALID_ARGUMENT;
  *version = d->nvlink_version;
  return OK;
}

ret_t nvmlDeviceGetCudaComputeCapability(void *handle, int *major, int *minor) {
  DEVICE(d, handle);
  if (!major || !minor) return INVALID_ARGUMENT;
  *major = d->cc_major;
  *minor = d->cc_minor;
  return OK;
}
