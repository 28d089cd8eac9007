/* NCCL declarations for cuda-js, written from NVIDIA's NCCL API reference
 * (nccl.h ships with NCCL, not with the CUDA toolkit that generates the
 * bindings): the communicator, collective, point-to-point and group calls of
 * NCCL 2.x (libnccl.so.2, as the nvidia-nccl-cu13 wheel installs it). A
 * function that the installed library lacks is reported when it is called.
 *
 * Two deliberate spellings, both ABI-identical to nccl.h's on the LP64
 * platforms the addon builds for (x86-64, aarch64: each is one 64-bit
 * integer-class argument):
 *  - device buffers (nccl.h's `const void* sendbuff`, `void* recvbuff`) are
 *    declared as CUdeviceptr, so that JS passes device addresses as the
 *    driver bindings do, never host memory;
 *  - the stream (nccl.h's `cudaStream_t`, the runtime's name for
 *    `struct CUstream_st *`) is declared by its driver name CUstream, so that
 *    the bindings take the same branded handle as the driver's functions.
 *
 * The #defines below are read by the generator: integer ones become constants
 * of the `nccl` namespace. */

#define NCCL_UNIQUE_ID_BYTES 128

typedef unsigned long long CUdeviceptr;
typedef struct CUstream_st *CUstream;

/* A communicator: opaque, freed by ncclCommDestroy or ncclCommAbort. */
typedef struct ncclComm *ncclComm_t;

/* The id that every rank of a new communicator is given (made by one rank
 * with ncclGetUniqueId and passed to the others out of band). */
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

/* The built-in reductions. Values from ncclNumOps up are made at run time by
 * ncclRedOpCreatePreMulSum, which these declarations leave out; ncclMaxRedOp
 * (the largest value a 4-byte enum holds) keeps the enum's size. */
typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
  ncclNumOps = 5,
  ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

/* Element types. The float8 types are NCCL 2.24 and newer (older libraries
 * refuse them with ncclInvalidArgument). */
typedef enum {
  ncclInt8 = 0,
  ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclHalf = 6,
  ncclFloat32 = 7,
  ncclFloat = 7,
  ncclFloat64 = 8,
  ncclDouble = 8,
  ncclBfloat16 = 9,
  ncclFloat8e4m3 = 10,
  ncclFloat8e5m2 = 11,
  ncclNumTypes = 12
} ncclDataType_t;

/* The library's version: major * 10000 + minor * 100 + patch (22703 for 2.27.3). */
ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);

/* Rank `rank` of `nranks` joins the communicator of `commId` on the current
 * device; blocks until every rank has joined. */
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
/* One communicator per device of `devlist`, within this process (`ndev` of each). */
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist);
ncclResult_t ncclCommFinalize(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);

const char *ncclGetErrorString(ncclResult_t result);
/* The last error's message; NCCL does not use `comm` (NULL is allowed). */
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);

/* Collectives: enqueued on `stream`, counts in elements of `datatype`. */
ncclResult_t ncclReduce(CUdeviceptr sendbuff, CUdeviceptr recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root,
                        ncclComm_t comm, CUstream stream);
ncclResult_t ncclBroadcast(CUdeviceptr sendbuff, CUdeviceptr recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                           CUstream stream);
ncclResult_t ncclAllReduce(CUdeviceptr sendbuff, CUdeviceptr recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, CUstream stream);
/* recvbuff holds nranks * recvcount elements of the input; each rank gets its block. */
ncclResult_t ncclReduceScatter(CUdeviceptr sendbuff, CUdeviceptr recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op,
                               ncclComm_t comm, CUstream stream);
/* recvbuff receives nranks * sendcount elements, rank by rank. */
ncclResult_t ncclAllGather(CUdeviceptr sendbuff, CUdeviceptr recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm,
                           CUstream stream);

/* Point to point: a send must be matched by a recv of the same count and type on `peer`. */
ncclResult_t ncclSend(CUdeviceptr sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, CUstream stream);
ncclResult_t ncclRecv(CUdeviceptr recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, CUstream stream);

/* Calls between these two are issued together at ncclGroupEnd (per thread). */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
