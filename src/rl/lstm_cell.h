// File: lstm_cell.h
// The LSTM cell's elementwise part on raw rows, torch-free: the gate
// activations and the new cell and hidden state. It is compiled apart from
// LibTorch's sources with -fno-trapping-math so that GCC vectorises it (a
// float comparison that may trap stops its if-conversion): glibc's tanhf is
// a call per element (through expm1f) and was 15% of a pretrained
// placement's decode. exp, sigmoid and tanh here are straight-line
// arithmetic: Cody-Waite range reduction, a degree-7 polynomial and an
// exponent built from bits; exp is within 2 ulp of std::exp on [-87, 88],
// sigmoid and tanh within 1e-7 of the exact values, as close as libm's
// float functions (tests/rl/lstm_cell_test.cc).
//
// Gates are ordered input, forget, cell, output.
#pragma once

#include <cstdint>

namespace devplace::rl {

float exp_approx(float x);      // e^x, x clamped to [-87, 88]
float sigmoid_approx(float x);  // 1 / (1 + e^-x)
float tanh_approx(float x);

// One step for `batch` rows of width n. z [batch, 4n] holds the
// pre-activations and is overwritten by the activated gates (i, f, g, o);
// c = f c_prev + i g (c_prev null: zero state), tanh_c = tanh(c),
// h = o tanh_c. All arrays distinct.
void lstm_cell_forward(float* z, const float* c_prev, float* c, float* tanh_c, float* h, int64_t batch, int64_t n);

// The same step in place, for decoding: z [batch, 4n] is read only,
// c [batch, n] is updated and h [batch, n] overwritten.
void lstm_cell_step(const float* z, float* h, float* c, int64_t batch, int64_t n);

}  // namespace devplace::rl
