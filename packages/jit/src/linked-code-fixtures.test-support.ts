// Linked code for the tests of declareDevice: one function, `mul_f32(a, b)`
// = a * b in f32 (round to nearest), written as PTX by hand and as CUDA C++.
// Not part of the package.

/** `mul_f32` in PTX, as numba's docs write a linked function by hand (PTX 7.0, sm_52: any newer GPU and linker take it). */
export const MUL_F32_PTX = `.version 7.0
.target sm_52
.address_size 64

.visible .func (.param .b32 r) mul_f32(.param .b32 a, .param .b32 b)
{
  .reg .f32 %f<4>;
  ld.param.f32 %f1, [a];
  ld.param.f32 %f2, [b];
  mul.rn.f32 %f3, %f1, %f2;
  st.param.f32 [r], %f3;
  ret;
}
`;

/** `mul_f32` in CUDA C++, with C linkage. */
export const MUL_F32_CUDA = 'extern "C" __device__ float mul_f32(float a, float b) { return a * b; }\n';
