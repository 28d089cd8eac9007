// Part 1a, cold start through the layers it needs only: node cold-jit.mjs
import { jit, cuda, f32 } from '@cuda-js/jit';
import { Device } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { coldStart } from './cold-body.mjs';

coldStart({ jit, cuda, f32, Device, StridedMemoryView });
