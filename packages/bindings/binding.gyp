{
  "targets": [
    {
      "target_name": "cuda_js_bindings",
      "sources": [
        "native/src/addon.cpp",
        "native/src/runtime.cpp",
        "native/src/library-loader.cpp",
        "native/src/errors.cpp",
        "native/src/launch.cpp",
        "native/src/host-callbacks.cpp",
        "native/src/async-calls.cpp",
        "native/src/nvjitlink-thread.cpp",
        "native/src/pointer-attribute.cpp",
        "native/src/generated-functions.cpp"
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
