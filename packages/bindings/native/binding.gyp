{
  "targets": [
    {
      "target_name": "cuda_js_bindings",
      "sources": [
        "src/addon.cpp",
        "src/runtime.cpp",
        "src/library-loader.cpp",
        "src/errors.cpp",
        "src/launch.cpp",
        "src/host-callbacks.cpp",
        "src/host-call-channel.cpp",
        "src/host-array-buffer.cpp",
        "src/link-state.cpp",
        "src/async-calls.cpp",
        "src/nvjitlink-thread.cpp",
        "src/pointer-attribute.cpp",
        "src/graph-calls.cpp",
        "src/graph-host-functions.cpp",
        "src/process-fd.cpp",
        "src/fast-exit.cpp",
        "src/memcpy-host-buffers.cpp",
        "src/generated-functions.cpp"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-O2", "-Wno-deprecated-declarations"],
      "libraries": ["-ldl"],
      "xcode_settings": { "GCC_ENABLE_CPP_EXCEPTIONS": "YES", "CLANG_CXX_LANGUAGE_STANDARD": "c++17" }
    }
  ]
}
