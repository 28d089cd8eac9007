// Part 1a, cold start through the umbrella package: node cold-cuda-js.mjs
import { jit, cuda, f32, Device, StridedMemoryView } from 'cuda-js';
import { coldStart } from './cold-body.mjs';

coldStart({ jit, cuda, f32, Device, StridedMemoryView });
