// The desktop form of the rnn op's recurrence (ops/rnn.hpp: LSTM, GRU,
// RNN_TANH, RNN_RELU): one direction of one layer, float32.
//
//   kernels::rnn_weights w;  w.prepare(cell, h, in, wih, whh, bih, bhh);  // once
//   kernels::rnn_project(w, rows, x, proj);  // proj = x W_ih^T + biases, one SGEMM
//   kernels::rnn_recurrence(seq);            // the steps, gates fused
//
// The G * H gate rows of one direction are regrouped into hidden blocks of V
// units (V the vector width of the instruction set prepared for): column
// ((u / V) * G + j) * V + u % V holds gate j of unit u, and the units are
// padded to Hp, a multiple of V, with zero weights.  So one hidden block's G
// gates are G vectors side by side, and a step computes them, applies the
// gates' non-linearities and updates h (and c) without another pass.
//
// The input projection of every step, b_ih + x[T * N, In] W_ih^T, is one pass
// over the rows into proj [T * N, G * Hp] (rnn_detail::project, a register
// tile of rows x vectors of gate columns).  Per step, every active sequence b
// (t < len[b]) of a tile of rows sums b_hh + h_prev[b] W_hh^T with a register
// tile of HB hidden blocks x MB sequences (each W_hh^T row loaded once for the
// MB sequences), adds its proj row, and the tile's gates go through sigmoid /
// tanh (Paddle's unclipped sigmoid_v2 and tanh_v2, 1 / (1 + exp(-x)) and
// 2 / (1 + exp(-2x)) - 1) and the state update.  The new h goes to a second
// buffer (every block reads all of h_prev), c is updated in place.  Inactive
// sequences keep their state and write zeros to Out.
//
// Every value is the plain loop's (rnn_reference<float>, the firmware form),
// bit for bit, for LSTM, GRU and RNN_RELU: each sum starts at its bias and
// adds its products in input order, a multiply then an add (no fused
// multiply-add: the arch units build with -ffp-contract=off), the gates add
// the two sums and take kernels::exp_ops (the same bits in a vector lane as
// in a scalar), and the state updates run the plain loop's operations in its
// order.  So a recognizer's rnn gives the same bits on the desktop and in
// firmware.  (RNN_TANH takes xsimd::tanh here and std::tanh there.)
//
// The recurrence is a template on the xsimd architecture; the arch units
// (simd/arch_unit.hpp) register it (simd::arch_table::rnn) beside the SGEMM, so it runs the
// widest vectors this CPU has (rnn_for).  Without xsimd (LITEGRAPH_SCALAR_SIMD)
// there is no fast form: rnn_fast_available is false and ops::rnn runs its
// reference loop.
//
// The reference loop, rnn_reference (every layer and direction, per step,
// sequence and gate row, in T = float or double), is heap-free: its
// temporaries are rnn_reference_scratch(dims) elements of caller memory.  It is
// the op's float64 and `litegraph_kernel = "reference"` kernel and its
// firmware form (a firmware network's rnn layer).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "litegraph/kernels/exp.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

enum class rnn_cell { lstm, gru, rnn_tanh, rnn_relu };

constexpr std::int64_t rnn_gates(rnn_cell c) {
    return c == rnn_cell::lstm ? 4 : (c == rnn_cell::gru ? 3 : 1);
}

/// The geometry of one rnn op: cell, layers L, directions D (1 or 2), steps
/// T, sequences N, input features I of layer 0, hidden size H.
struct rnn_dims {
    rnn_cell cell = rnn_cell::lstm;
    std::int64_t layers = 1, dirs = 1, steps = 0, n = 1, in = 1, h = 1;
};

/// Elements of scratch rnn_reference needs: the states (h, and c for LSTM)
/// of every layer and direction, the outputs of the inner layers (two
/// alternating buffers), one sequence's gate rows (input and hidden parts).
constexpr std::int64_t rnn_reference_scratch(const rnn_dims& d) {
    const std::int64_t state_n = d.layers * d.dirs * d.n * d.h;
    const std::int64_t layer_n = d.steps * d.n * d.dirs * d.h;
    const std::int64_t g = rnn_gates(d.cell);
    return state_n * (d.cell == rnn_cell::lstm ? 2 : 1) + (d.layers > 1 ? layer_n : 0) +
           (d.layers > 2 ? layer_n : 0) + 2 * g * d.h;
}

namespace rnn_detail {
/// exp in T: kernels::exp_ops in float (the fast kernels' bits), std::exp in
/// double.
template <class T>
inline T exp_of(T v) {
    if constexpr (std::is_same_v<T, float>)
        return exp_ops(v);
    else
        return std::exp(v);
}
template <class T>
inline T sigmoid_ref(T v) {
    return T(1) / (T(1) + exp_of(-v));
}
template <class T>
inline T tanh_ref(T v) {
    return T(2) / (T(1) + exp_of(T(-2) * v)) - T(1);
}

/// out[j] = b[j] + sum over q of w[j * k + q] * v[q], for j < rows: each
/// sum in order of q from b[j] (the plain loop's order, so the same
/// values), four rows at a time sharing each load of v (on a Cortex-M7
/// about half the instructions of one row at a time).
template <class T>
inline void affine_rows(const T* w, std::int64_t k, const T* v, const T* b, T* out,
                        std::int64_t rows) {
    std::int64_t j = 0;
    for (; j + 4 <= rows; j += 4) {
        const T* w0 = w + j * k;
        const T* w1 = w0 + k;
        const T* w2 = w1 + k;
        const T* w3 = w2 + k;
        T a0 = b[j], a1 = b[j + 1], a2 = b[j + 2], a3 = b[j + 3];
        for (std::int64_t q = 0; q < k; ++q) {
            const T x = v[q];
            a0 += w0[q] * x;
            a1 += w1[q] * x;
            a2 += w2[q] * x;
            a3 += w3[q] * x;
        }
        out[j] = a0;
        out[j + 1] = a1;
        out[j + 2] = a2;
        out[j + 3] = a3;
    }
    for (; j < rows; ++j) {
        T a = b[j];
        const T* wr = w + j * k;
        for (std::int64_t q = 0; q < k; ++q) a += wr[q] * v[q];
        out[j] = a;
    }
}

/// One cell step of one sequence: xi = W_ih x + b_ih, hh = W_hh h + b_hh;
/// updates h (and c) in place and writes h to o.
template <class T>
inline void reference_step(rnn_cell mode, std::int64_t h, const T* xi, const T* hh, T* hp, T* cp,
                           T* o) {
    for (std::int64_t k = 0; k < h; ++k) {
        T v;
        switch (mode) {
            case rnn_cell::lstm: {
                const T i = sigmoid_ref(xi[k] + hh[k]);
                const T f = sigmoid_ref(xi[h + k] + hh[h + k]);
                const T c = tanh_ref(xi[2 * h + k] + hh[2 * h + k]);
                const T og = sigmoid_ref(xi[3 * h + k] + hh[3 * h + k]);
                cp[k] = c * i + cp[k] * f;
                v = og * tanh_ref(cp[k]);
                break;
            }
            case rnn_cell::gru: {
                const T r = sigmoid_ref(xi[k] + hh[k]);
                const T z = sigmoid_ref(xi[h + k] + hh[h + k]);
                const T c = tanh_ref(xi[2 * h + k] + r * hh[2 * h + k]);
                v = z * hp[k] + c - z * c;
                break;
            }
            case rnn_cell::rnn_tanh:
                v = std::tanh(xi[k] + hh[k]);
                break;
            default: {
                const T a = xi[k] + hh[k];
                v = a > T(0) ? a : T(0);
                break;
            }
        }
        o[k] = v;
    }
    // h is read by every k above (GRU), so update it after the loop.
    std::copy(o, o + h, hp);
}
}  // namespace rnn_detail

/// The rnn op's plain loop (ops/rnn.hpp has the arithmetic): x [T, N, I];
/// h0 (and c0 for LSTM) [L * D, N, H]; weights the op's WeightList (4 * L * D
/// pointers to T, Paddle's order); len [N] or null (every sequence T steps);
/// out [T, N, D * H]; h_out / c_out [L * D, N, H] or null; scratch
/// rnn_reference_scratch(d) elements.  No heap.
template <class T>
void rnn_reference(const rnn_dims& d, const T* x, const T* h0, const T* c0,
                   const void* const* weights, const std::int64_t* len, T* out, T* h_out, T* c_out,
                   T* scratch) {
    const std::int64_t steps = d.steps, n = d.n, h = d.h, g = rnn_gates(d.cell);
    const std::int64_t dh = d.dirs * h;
    const bool lstm = d.cell == rnn_cell::lstm;
    const std::int64_t state_n = d.layers * d.dirs * n * h;
    const std::int64_t layer_n = steps * n * dh;
    T* hs = scratch;
    T* cs = lstm ? hs + state_n : nullptr;
    T* buf_a = hs + state_n * (lstm ? 2 : 1);
    T* buf_b = buf_a + (d.layers > 1 ? layer_n : 0);
    T* gate = buf_b + (d.layers > 2 ? layer_n : 0);
    T* hh = gate + g * h;
    std::copy(h0, h0 + state_n, hs);
    if (lstm) std::copy(c0, c0 + state_n, cs);
    const std::int64_t bias_start = 2 * d.layers * d.dirs;
    const auto w = [&](std::int64_t k) { return static_cast<const T*>(weights[k]); };
    const T* layer_in = x;
    std::int64_t in = d.in;
    for (std::int64_t l = 0; l < d.layers; ++l) {
        T* lo = l == d.layers - 1 ? out : (l % 2 == 0 ? buf_a : buf_b);
        for (std::int64_t dir = 0; dir < d.dirs; ++dir) {
            const std::int64_t k = 2 * (l * d.dirs + dir);
            const T* wih = w(k);
            const T* whh = w(k + 1);
            const T* bih = w(bias_start + k);
            const T* bhh = w(bias_start + k + 1);
            T* hst = hs + (l * d.dirs + dir) * n * h;
            T* cst = lstm ? cs + (l * d.dirs + dir) * n * h : nullptr;
            for (std::int64_t s = 0; s < steps; ++s) {
                const std::int64_t t = dir == 0 ? s : steps - 1 - s;
                for (std::int64_t b = 0; b < n; ++b) {
                    T* o = lo + (t * n + b) * dh + dir * h;
                    if (len && t >= len[b]) {
                        std::fill(o, o + h, T(0));
                        continue;
                    }
                    const T* xv = layer_in + (t * n + b) * in;
                    T* hp = hst + b * h;
                    rnn_detail::affine_rows(wih, in, xv, bih, gate, g * h);
                    rnn_detail::affine_rows(whh, h, hp, bhh, hh, g * h);
                    rnn_detail::reference_step(d.cell, h, gate, hh, hp,
                                               lstm ? cst + b * h : nullptr, o);
                }
            }
        }
        layer_in = lo;
        in = dh;
    }
    if (h_out) std::copy(hs, hs + state_n, h_out);
    if (c_out && lstm) std::copy(cs, cs + state_n, c_out);
}

#if defined(LITEGRAPH_SCALAR_SIMD)
inline constexpr bool rnn_fast_available = false;
#else
inline constexpr bool rnn_fast_available = true;
#endif

/// One step sequence's operands (one direction of one layer).
struct rnn_sequence {
    rnn_cell cell = rnn_cell::lstm;
    std::int64_t steps = 0, n = 0, h = 0, hp = 0;  // hp: H padded to the block width
    bool reverse = false;
    const float* proj = nullptr;        // [steps * n, G * hp]: b_ih + x W_ih^T
    const float* whh_t = nullptr;       // [h, G * hp]: row k multiplies h_prev[k]
    const float* bias_hh = nullptr;     // [G * hp]: b_hh
    const std::int64_t* len = nullptr;  // [n], each in [0, steps]
    float* hs = nullptr;                // [n, hp]: h0 in, final h out
    float* hs2 = nullptr;               // [n, hp]: scratch
    float* cs = nullptr;                // [n, hp]: c0 in, final c out (LSTM)
    float* out = nullptr;               // Out + direction * H
    std::int64_t out_stride = 0;        // D * H: floats from one (t, b) row to the next
};

namespace detail {
/// An architecture's recurrence and the block width its weights need.
struct rnn_impl {
    std::int64_t width = 1;
    void (*run)(const rnn_sequence&) = nullptr;
    // proj[rows, ld] = bias + x[rows, in] (row stride ldx) w[in, ld]
    void (*project)(std::int64_t rows, const float* x, std::int64_t ldx, std::int64_t in,
                    const float* w, std::int64_t ld, const float* bias, float* proj) = nullptr;
};
}  // namespace detail

#if !defined(LITEGRAPH_SCALAR_SIMD)
namespace rnn_detail {

template <class V>
inline V sigmoid(V x) {
    return V(1.f) / (V(1.f) + exp_ops(-x));
}
template <class V>
inline V tanh_v2(V x) {
    return V(2.f) / (V(1.f) + exp_ops(V(-2.f) * x)) - V(1.f);
}

/// R rows x NV vectors of the projection: bias + the row's products in
/// input order, each a multiply then an add (affine_rows' arithmetic).
template <class A, int R, int NV>
inline void project_block(const float* x, std::int64_t ldx, std::int64_t in, const float* w,
                          std::int64_t ld, const float* bias, float* out) {
    using V = xsimd::batch<float, A>;
    constexpr std::int64_t W = V::size;
    V acc[R][NV];
    for (int v = 0; v < NV; ++v) {
        const V b = V::load_unaligned(bias + v * W);
        for (int r = 0; r < R; ++r) acc[r][v] = b;
    }
    for (std::int64_t q = 0; q < in; ++q) {
        V wv[NV];
        for (int v = 0; v < NV; ++v) wv[v] = V::load_unaligned(w + q * ld + v * W);
        for (int r = 0; r < R; ++r) {
            const V a(x[r * ldx + q]);
            for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + a * wv[v];
        }
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(out + r * ld + v * W);
}

/// R rows of the projection, every column (ld a multiple of the width).
template <class A, int R>
inline void project_rows(const float* x, std::int64_t ldx, std::int64_t in, const float* w,
                         std::int64_t ld, const float* bias, float* out) {
    constexpr std::int64_t W = xsimd::batch<float, A>::size;
    std::int64_t c = 0;
    for (; c + 2 * W <= ld; c += 2 * W)
        project_block<A, R, 2>(x, ldx, in, w + c, ld, bias + c, out + c);
    if (c < ld) project_block<A, R, 1>(x, ldx, in, w + c, ld, bias + c, out + c);
}

template <class A>
void project(std::int64_t rows, const float* x, std::int64_t ldx, std::int64_t in, const float* w,
             std::int64_t ld, const float* bias, float* proj) {
    std::int64_t r = 0;
    for (; r + 6 <= rows; r += 6)
        project_rows<A, 6>(x + r * ldx, ldx, in, w, ld, bias, proj + r * ld);
    for (; r + 2 <= rows; r += 2)
        project_rows<A, 2>(x + r * ldx, ldx, in, w, ld, bias, proj + r * ld);
    if (r < rows) project_rows<A, 1>(x + r * ldx, ldx, in, w, ld, bias, proj + r * ld);
}

/// What one step's tiles share.
struct step_ctx {
    std::int64_t h, hp, ld;  // ld = G * hp
    const float* whh_t;
    const float* bias_hh;
    const float* proj;  // the step's first row (sequence 0)
    const float* hprev;
    float* hnext;
    float* cs;
    float* out;  // the step's Out row of sequence 0
    std::int64_t out_stride;
};

/// HB hidden blocks (from block hb0) of MB sequences `rows`: gates, state.
template <class A, rnn_cell C, int HB, int MB>
inline void tile(const step_ctx& s, std::int64_t hb0, const std::int64_t* rows) {
    using V = xsimd::batch<float, A>;
    constexpr std::int64_t G = rnn_gates(C), W = V::size;
    constexpr int NA = HB * static_cast<int>(G);
    V acc[MB][NA];
    const float* hp[MB];
    for (int m = 0; m < MB; ++m) hp[m] = s.hprev + rows[m] * s.hp;
    for (int i = 0; i < NA; ++i) {  // b_hh + h_prev W_hh^T, from the bias
        const V b = V::load_unaligned(s.bias_hh + (hb0 * G + i) * W);
        for (int m = 0; m < MB; ++m) acc[m][i] = b;
    }
    const float* wk = s.whh_t + hb0 * G * W;
    for (std::int64_t k = 0; k < s.h; ++k, wk += s.ld) {
        V hv[MB];
        for (int m = 0; m < MB; ++m) hv[m] = V(hp[m][k]);
        detail::unroll(std::make_integer_sequence<std::int64_t, NA>{}, [&](auto i) {
            const V w = V::load_unaligned(wk + i * W);
            for (int m = 0; m < MB; ++m) acc[m][i] = acc[m][i] + hv[m] * w;
        });
    }
    for (int m = 0; m < MB; ++m) {
        const std::int64_t b = rows[m];
        for (int j = 0; j < HB; ++j) {
            const std::int64_t u0 = (hb0 + j) * W;  // first unit of the block
            const V* a = acc[m] + j * G;
            // The block's gates of the input projection (b_ih included).
            const float* px = s.proj + b * s.ld + (hb0 + j) * G * W;
            const auto xg = [&](int g) { return V::load_unaligned(px + g * W); };
            V hv;
            if constexpr (C == rnn_cell::lstm) {
                const V i = sigmoid(xg(0) + a[0]), f = sigmoid(xg(1) + a[1]);
                const V g = tanh_v2(xg(2) + a[2]), o = sigmoid(xg(3) + a[3]);
                float* cp = s.cs + b * s.hp + u0;
                const V c = g * i + V::load_unaligned(cp) * f;
                c.store_unaligned(cp);
                hv = o * tanh_v2(c);
            } else if constexpr (C == rnn_cell::gru) {
                const V r = sigmoid(xg(0) + a[0]), z = sigmoid(xg(1) + a[1]);
                const V n = tanh_v2(xg(2) + r * a[2]);
                hv = z * V::load_unaligned(hp[m] + u0) + n - z * n;
            } else if constexpr (C == rnn_cell::rnn_tanh) {
                hv = xsimd::tanh(xg(0) + a[0]);
            } else {
                const V v = xg(0) + a[0];  // (v > 0 ? v : 0): a NaN gives 0, as the plain loop
                hv = xsimd::select(v > V(0.f), v, V(0.f));
            }
            hv.store_unaligned(s.hnext + b * s.hp + u0);
            float* o = s.out + b * s.out_stride + u0;
            if (u0 + W <= s.h) {
                hv.store_unaligned(o);
            } else {
                alignas(64) float lanes[W];
                hv.store_aligned(lanes);
                std::memcpy(o, lanes, static_cast<std::size_t>(s.h - u0) * sizeof(float));
            }
        }
    }
}

/// Register tiles per cell: one sequence, HB1 hidden blocks (at most 12
/// accumulators); several sequences (LSTM, GRU), one block of MBX of them.
template <rnn_cell C>
inline constexpr int hb_one = C == rnn_cell::lstm ? 3 : (C == rnn_cell::gru ? 4 : 8);
template <rnn_cell C>
inline constexpr int mb_many = C == rnn_cell::lstm || C == rnn_cell::gru ? 3 : 1;

/// Hidden blocks [hb, nb) of one sequence, in tiles of R blocks or fewer.
template <class A, rnn_cell C, int R>
inline void blocks_one(const step_ctx& s, std::int64_t hb, std::int64_t nb,
                       const std::int64_t* row) {
    if constexpr (R > 0) {
        for (; hb + R <= nb; hb += R) tile<A, C, R, 1>(s, hb, row);
        blocks_one<A, C, R - 1>(s, hb, nb, row);
    }
}

template <class A, rnn_cell C>
void recurrence(const rnn_sequence& q) {
    using V = xsimd::batch<float, A>;
    constexpr std::int64_t W = V::size;
    const std::int64_t ld = rnn_gates(C) * q.hp, nb = q.hp / W;
    float* hprev = q.hs;
    float* hnext = q.hs2;
    std::vector<std::int64_t> active(static_cast<std::size_t>(q.n));
    for (std::int64_t st = 0; st < q.steps; ++st) {
        const std::int64_t t = q.reverse ? q.steps - 1 - st : st;
        std::int64_t na = 0;
        for (std::int64_t b = 0; b < q.n; ++b) {
            if (t < q.len[b]) {
                active[static_cast<std::size_t>(na++)] = b;
            } else {  // state kept, zeros out
                std::copy(hprev + b * q.hp, hprev + (b + 1) * q.hp, hnext + b * q.hp);
                float* o = q.out + (t * q.n + b) * q.out_stride;
                std::fill(o, o + q.h, 0.f);
            }
        }
        const step_ctx s{q.h,         q.hp,
                         ld,          q.whh_t,
                         q.bias_hh,   q.proj + t * q.n * ld,
                         hprev,       hnext,
                         q.cs,        q.out + t * q.n * q.out_stride,
                         q.out_stride};
        const std::int64_t* rows = active.data();
        std::int64_t r = 0;
        constexpr int MB = mb_many<C>;
        if constexpr (MB > 1) {
            for (; r + MB <= na; r += MB)
                for (std::int64_t hb = 0; hb < nb; ++hb) tile<A, C, 1, MB>(s, hb, rows + r);
            if constexpr (MB > 2)
                if (r + 2 <= na) {
                    for (std::int64_t hb = 0; hb < nb; ++hb) tile<A, C, 1, 2>(s, hb, rows + r);
                    r += 2;
                }
        }
        for (; r < na; ++r) blocks_one<A, C, hb_one<C>>(s, 0, nb, rows + r);
        std::swap(hprev, hnext);
    }
    if (hprev != q.hs) std::copy(hprev, hprev + q.n * q.hp, q.hs);
}

template <class A>
void run_recurrence(const rnn_sequence& q) {
    switch (q.cell) {
        case rnn_cell::lstm:
            recurrence<A, rnn_cell::lstm>(q);
            break;
        case rnn_cell::gru:
            recurrence<A, rnn_cell::gru>(q);
            break;
        case rnn_cell::rnn_tanh:
            recurrence<A, rnn_cell::rnn_tanh>(q);
            break;
        default:
            recurrence<A, rnn_cell::rnn_relu>(q);
            break;
    }
}

}  // namespace rnn_detail

namespace detail {
template <class A>
constexpr rnn_impl rnn_impl_of() {
    return {simd::width_of<A>, &rnn_detail::run_recurrence<A>, &rnn_detail::project<A>};
}
}  // namespace detail
#endif

namespace detail {
/// The recurrence of a slot: its arch unit's, or the compile-time one's
/// (none without xsimd: width 1, no kernel).
inline rnn_impl rnn_for(simd::isa i) {
#if defined(LITEGRAPH_SCALAR_SIMD)
    (void)i;
    return {};
#else
    if (const simd::arch_table* t = simd::table_of(i)) return *t->rnn;
    return rnn_impl_of<simd::default_arch>();
#endif
}
}  // namespace detail

/// One direction of one layer's weights in the blocked layout (top of file),
/// prepared for one instruction set (its vector width).
struct rnn_weights {
    rnn_cell cell = rnn_cell::lstm;
    std::int64_t h = 0, hp = 0, in = 0;
    simd::isa isa = simd::isa::baseline;
    std::vector<float> wih_t;    // [in, G * hp]
    std::vector<float> bias_ih;  // [G * hp]
    std::vector<float> whh_t;    // [h, G * hp]
    std::vector<float> bias_hh;  // [G * hp]

    std::int64_t cols() const { return rnn_gates(cell) * hp; }

    /// wih [G*H, in], whh [G*H, H], bih and bhh [G*H] in Paddle's order.
    void prepare(rnn_cell c, std::int64_t hidden, std::int64_t inputs, const float* wih,
                 const float* whh, const float* bih, const float* bhh) {
        cell = c;
        h = hidden;
        in = inputs;
        isa = simd::active();
        const std::int64_t v = detail::rnn_for(isa).width, g = rnn_gates(c);
        hp = (h + v - 1) / v * v;
        const std::int64_t ld = g * hp;
        wih_t.assign(static_cast<std::size_t>(in * ld), 0.f);
        whh_t.assign(static_cast<std::size_t>(h * ld), 0.f);
        bias_ih.assign(static_cast<std::size_t>(ld), 0.f);
        bias_hh.assign(static_cast<std::size_t>(ld), 0.f);
        for (std::int64_t j = 0; j < g; ++j)
            for (std::int64_t u = 0; u < h; ++u) {
                const std::int64_t row = j * h + u;                      // Paddle's gate row
                const std::int64_t col = ((u / v) * g + j) * v + u % v;  // blocked column
                for (std::int64_t q = 0; q < in; ++q) wih_t[q * ld + col] = wih[row * in + q];
                for (std::int64_t q = 0; q < h; ++q) whh_t[q * ld + col] = whh[row * h + q];
                bias_ih[col] = bih[row];
                bias_hh[col] = bhh[row];
            }
    }
};

/// proj[rows, G * hp] = b_ih + x[rows, in] (row stride ldx) W_ih^T, each sum
/// in input order (see the top of the file), on the instruction set `w` was
/// prepared for.  (Only when rnn_fast_available.)
inline void rnn_project(const rnn_weights& w, std::int64_t rows, const float* x, std::int64_t ldx,
                        float* proj) {
    detail::rnn_for(w.isa).project(rows, x, ldx, w.in, w.wih_t.data(), w.cols(), w.bias_ih.data(),
                                   proj);
}

/// The steps of one direction (see rnn_sequence), on the kernels of the
/// instruction set `w` was prepared for.
/// (Only when rnn_fast_available.)
inline void rnn_recurrence(const rnn_weights& w, const rnn_sequence& q) {
    detail::rnn_for(w.isa).run(q);
}

}  // namespace litegraph::kernels
