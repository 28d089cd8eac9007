// The Node.js binding of the DLPack C exchange API (the part DLPack leaves to
// each host language). In Python `py_object` is a PyObject*; in Node.js each
// addon has its own napi_env and a JS exception thrown on one env is not seen
// by another, so the object travels with the env of the caller:
//
// - managed_tensor_from_py_object_no_sync(py_object, out) and
//   dltensor_from_py_object_no_sync(py_object, out): `py_object` is a
//   `DLPackNodeObject*` whose `value` lives in the caller's current handle
//   scope. On failure the producer returns non-zero with a JS exception pending
//   on `env` (napi_throw on that env), which the caller then sees as its own.
// - managed_tensor_to_py_object_no_sync(tensor, out_py_object): `out_py_object`
//   is a `DLPackNodeObject*` (cast to void**) whose `env` the caller has set;
//   the producer stores the new object in `value` (valid in the caller's current
//   handle scope), or returns non-zero with an exception pending on `env`.
// - Every call happens on the JS thread of `env`.
#ifndef CUDA_JS_MEMORY_VIEW_DLPACK_NODE_H_
#define CUDA_JS_MEMORY_VIEW_DLPACK_NODE_H_

#include <node_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct DLPackNodeObject {
  napi_env env;
  napi_value value;
} DLPackNodeObject;

#ifdef __cplusplus
}
#endif

#endif  // CUDA_JS_MEMORY_VIEW_DLPACK_NODE_H_
