// The OpenCL C source of the OpenCL backend: one program, built once per
// device, whose kernels take every size and option as arguments (so a new
// shape rebuilds buffers and launches, never the program).  Activation codes
// (generated from ops::opencl_activations) and terminal codes (term_*) select
// the fused epilogue per launch.
#pragma once

#include <string>

#include "litegraph/ops/activation.hpp"

namespace litegraph::backends::opencl {

/// The activation code of no activation; activation k (1-based) of
/// ops::opencl_activations is code k (backends/opencl.hpp's activation_of).
inline constexpr int act_none = 0;
enum term_code { term_store = 0, term_add_with, term_mul_with, term_mul_plane };

namespace detail {
/// `activate(v, act, p0, p1, p2)`: one case per activation of the list, its
/// functor's `opencl` expression (ops/activation.hpp).
template <class... F>
std::string activation_source(ops::functor_list<F...>) {
    std::string s =
        "float activate(float v, int act, float p0, float p1, float p2) {\n"
        "    switch (act) {\n";
    int code = 0;
    ((s += "        case " + std::to_string(++code) + ": return " + std::string(F::opencl) + ";\n"),
     ...);
    return s + "        default: return v;\n    }\n}\n";
}

inline constexpr const char* kernels_source = R"CLC(
/* Bias (has_bias 1), or scale and bias (2: a folded batch norm), then the
   activation: the value every conv kernel's epilogue writes. */
inline float finish(float v, __global const float* bias, __global const float* scale, int oc,
                    int has_bias, int act, float p0, float p1, float p2) {
    if (has_bias == 2) v = v * scale[oc] + bias[oc];
    else if (has_bias) v += bias[oc];
    return activate(v, act, p0, p1, p2);
}

/* Direct convolution, NCHW, groups, stride, dilation, padding, with the fused
   epilogue: v = act(conv + bias) (has_bias 2: act(conv * scale + bias), a
   folded batch norm), then store / + other / * other, or the SE
   gate (TERM 3): the conv output is [N, C, 1, 1] and scales a whole plane.
   Each work item computes OCB consecutive output channels of one pixel, so
   an input value loaded once feeds OCB multiply-adds. */
#define OCB 4
__kernel void conv_general(__global const float* x, __global const float* f,
                     __global const float* bias, __global const float* scale,
                     __global const float* other,
                     __global float* y, int C, int H, int W, int OC, int KH, int KW,
                     int OH, int OW, int SH, int SW, int DH, int DW, int PT, int PL, int G,
                     int has_bias, int act, float p0, float p1, float p2, int term, int plane) {
    const int ow = get_global_id(0), oh = get_global_id(1);
    const int blocks = (OC + OCB - 1) / OCB;
    const int n = get_global_id(2) / blocks, oc0 = (get_global_id(2) % blocks) * OCB;
    if (ow >= OW || oh >= OH) return;
    const int cin_g = C / G, cout_g = OC / G;
    float s[OCB];
    for (int j = 0; j < OCB; ++j) s[j] = 0.f;
    const int ksz = KH * KW;
    /* A block never straddles groups when cout_g % OCB == 0; otherwise go
       channel by channel. */
    const int same_group = (cout_g % OCB) == 0;
    const int ih0 = oh * SH - PT, iw0 = ow * SW - PL;
    if (same_group) {
        const int g = oc0 / cout_g;
        __global const float* xg = x + ((long)n * C + (long)g * cin_g) * H * W;
        __global const float* fb = f + (long)oc0 * cin_g * ksz;
        const int fstride = cin_g * ksz;
        for (int ic = 0; ic < cin_g; ++ic) {
            __global const float* xp = xg + (long)ic * H * W;
            for (int kh = 0; kh < KH; ++kh) {
                const int ih = ih0 + kh * DH;
                if (ih < 0 || ih >= H) continue;
                for (int kw = 0; kw < KW; ++kw) {
                    const int iw = iw0 + kw * DW;
                    if (iw < 0 || iw >= W) continue;
                    const float v = xp[ih * W + iw];
                    const int fo = (ic * KH + kh) * KW + kw;
                    for (int j = 0; j < OCB; ++j)
                        if (oc0 + j < OC) s[j] += v * fb[j * fstride + fo];
                }
            }
        }
    } else {
        for (int j = 0; j < OCB; ++j) {
            const int oc = oc0 + j;
            if (oc >= OC) break;
            const int g = oc / cout_g;
            __global const float* xg = x + ((long)n * C + (long)g * cin_g) * H * W;
            __global const float* fp = f + (long)oc * cin_g * ksz;
            float acc = 0.f;
            for (int ic = 0; ic < cin_g; ++ic) {
                __global const float* xp = xg + (long)ic * H * W;
                for (int kh = 0; kh < KH; ++kh) {
                    const int ih = ih0 + kh * DH;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = 0; kw < KW; ++kw) {
                        const int iw = iw0 + kw * DW;
                        if (iw < 0 || iw >= W) continue;
                        acc += xp[ih * W + iw] * fp[(ic * KH + kh) * KW + kw];
                    }
                }
            }
            s[j] = acc;
        }
    }
    for (int j = 0; j < OCB; ++j) {
        const int oc = oc0 + j;
        if (oc >= OC) break;
        const float v = finish(s[j], bias, scale, oc, has_bias, act, p0, p1, p2);
        const long idx = (((long)n * OC + oc) * OH + oh) * OW + ow;
        if (term == 0) y[idx] = v;
        else if (term == 1) y[idx] = v + other[idx];
        else if (term == 2) y[idx] = other[idx] * v;
        else {
            __global const float* o = other + idx * plane;
            __global float* d = y + idx * plane;
            for (int i = 0; i < plane; ++i) d[i] = o[i] * v;
        }
    }
}

/* The epilogue of one output element (shared by the conv kernels; the SE
   gate's plane form only in conv_general). */
inline void store_out(__global float* y, __global const float* bias,
                      __global const float* scale, __global const float* other, long idx,
                      int oc, float v, int has_bias,
                      int act, float p0, float p1, float p2, int term) {
    v = finish(v, bias, scale, oc, has_bias, act, p0, p1, p2);
    if (term == 0) y[idx] = v;
    else if (term == 1) y[idx] = v + other[idx];
    else y[idx] = other[idx] * v;
}

/* 1x1 conv, stride 1, no padding, one group: a GEMM of the filter [OC, C]
   and the input planes [C, P].  Each work item computes 4 output channels of
   4 consecutive pixels, loading each input quad once for 4 channels. */
__kernel void conv1x1(__global const float* x, __global const float* f,
                      __global const float* bias, __global const float* scale,
                     __global const float* other,
                      __global float* y, int C, int OC, int P, int has_bias, int act, float p0,
                      float p1, float p2, int term) {
    const int p0i = get_global_id(0) * 4, oc0 = get_global_id(1) * 4, n = get_global_id(2);
    if (p0i >= P || oc0 >= OC) return;
    __global const float* xn = x + (long)n * C * P;
    float4 acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
    const int full = p0i + 4 <= P;
    const int o1 = min(oc0 + 1, OC - 1), o2 = min(oc0 + 2, OC - 1), o3 = min(oc0 + 3, OC - 1);
    __global const float* f0 = f + (long)oc0 * C;
    __global const float* f1 = f + (long)o1 * C;
    __global const float* f2 = f + (long)o2 * C;
    __global const float* f3 = f + (long)o3 * C;
    for (int ic = 0; ic < C; ++ic) {
        __global const float* xp = xn + (long)ic * P + p0i;
        float4 xv;
        if (full) xv = vload4(0, xp);
        else xv = (float4)(xp[0], p0i + 1 < P ? xp[1] : 0.f, p0i + 2 < P ? xp[2] : 0.f, 0.f);
        acc0 += f0[ic] * xv;
        acc1 += f1[ic] * xv;
        acc2 += f2[ic] * xv;
        acc3 += f3[ic] * xv;
    }
    float4 accs[4] = {acc0, acc1, acc2, acc3};
    for (int j = 0; j < 4; ++j) {
        const int oc = oc0 + j;
        if (oc >= OC) break;
        const float a[4] = {accs[j].s0, accs[j].s1, accs[j].s2, accs[j].s3};
        for (int k = 0; k < 4 && p0i + k < P; ++k)
            store_out(y, bias, scale, other, ((long)n * OC + oc) * P + p0i + k, oc, a[k],
                      has_bias, act, p0, p1, p2, term);
    }
}

/* Depthwise conv (one input channel per group, one output channel per
   group): one output element per work item, the width fastest. */
__kernel void dwconv(__global const float* x, __global const float* f,
                     __global const float* bias, __global const float* scale,
                     __global const float* other,
                     __global float* y, int C, int H, int W, int KH, int KW, int OH, int OW,
                     int SH, int SW, int DH, int DW, int PT, int PL, int has_bias, int act,
                     float p0, float p1, float p2, int term) {
    const int ow = get_global_id(0), oh = get_global_id(1), nc = get_global_id(2);
    if (ow >= OW || oh >= OH) return;
    const int c = nc % C;
    __global const float* xp = x + (long)nc * H * W;
    __global const float* fp = f + (long)c * KH * KW;
    const int ih0 = oh * SH - PT, iw0 = ow * SW - PL;
    float s = 0.f;
    for (int kh = 0; kh < KH; ++kh) {
        const int ih = ih0 + kh * DH;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < KW; ++kw) {
            const int iw = iw0 + kw * DW;
            if (iw < 0 || iw >= W) continue;
            s += xp[ih * W + iw] * fp[kh * KW + kw];
        }
    }
    store_out(y, bias, scale, other, ((long)nc * OH + oh) * OW + ow, c, s, has_bias, act, p0,
              p1, p2, term);
}

/* Transposed convolution, gathered per output element; filter [C, OC/G, KH, KW]. */
__kernel void conv_transpose(__global const float* x, __global const float* f,
                               __global const float* bias, __global float* y, int C, int H,
                               int W, int OC, int KH, int KW, int OH, int OW, int SH, int SW,
                               int DH, int DW, int PT, int PL, int G, int has_bias) {
    const int ow = get_global_id(0), oh = get_global_id(1), noc = get_global_id(2);
    if (ow >= OW || oh >= OH) return;
    const int n = noc / OC, oc = noc % OC;
    const int cin_g = C / G, cout_g = OC / G, g = oc / cout_g, ocg = oc % cout_g;
    float s = 0.f;
    for (int icg = 0; icg < cin_g; ++icg) {
        const int ic = g * cin_g + icg;
        __global const float* xp = x + ((long)n * C + ic) * H * W;
        __global const float* fp = f + ((long)ic * cout_g + ocg) * KH * KW;
        for (int kh = 0; kh < KH; ++kh) {
            const int th = oh + PT - kh * DH;
            if (th < 0 || th % SH) continue;
            const int ih = th / SH;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                const int tw = ow + PL - kw * DW;
                if (tw < 0 || tw % SW) continue;
                const int iw = tw / SW;
                if (iw >= W) continue;
                s += xp[ih * W + iw] * fp[kh * KW + kw];
            }
        }
    }
    if (has_bias) s += bias[oc];
    y[(((long)n * OC + oc) * OH + oh) * OW + ow] = s;
}

/* pool2d as litegraph's host kernel: windows clipped with the top/left pad,
   exclusive or padded divisor, adaptive bins. */
__kernel void pool(__global const float* x, __global float* y, int H, int W, int OH, int OW,
                     int KH, int KW, int SH, int SW, int PT, int PL, int is_max, int exclusive,
                     int adaptive) {
    const int ow = get_global_id(0), oh = get_global_id(1), pc = get_global_id(2);
    if (ow >= OW || oh >= OH) return;
    int rlo, rhi, rext, clo, chi, cext;
    if (adaptive) {
        rlo = oh * H / OH; rhi = ((oh + 1) * H + OH - 1) / OH; rext = rhi - rlo;
        clo = ow * W / OW; chi = ((ow + 1) * W + OW - 1) / OW; cext = chi - clo;
    } else {
        rlo = oh * SH - PT; rhi = min(rlo + KH, H + PT); int rpad = rhi - rlo;
        rlo = max(rlo, 0); rhi = min(rhi, H); rext = exclusive ? rhi - rlo : rpad;
        clo = ow * SW - PL; chi = min(clo + KW, W + PL); int cpad = chi - clo;
        clo = max(clo, 0); chi = min(chi, W); cext = exclusive ? chi - clo : cpad;
    }
    __global const float* xp = x + (long)pc * H * W;
    float r;
    if (is_max) {
        r = -FLT_MAX;
        for (int ih = rlo; ih < rhi; ++ih)
            for (int iw = clo; iw < chi; ++iw) { const float v = xp[ih * W + iw]; r = r > v ? r : v; }
    } else {
        r = 0.f;
        for (int ih = rlo; ih < rhi; ++ih)
            for (int iw = clo; iw < chi; ++iw) r += xp[ih * W + iw];
        r = r / (float)(rext * cext);
    }
    y[((long)pc * OH + oh) * OW + ow] = r;
}

/* Element-wise binary op over broadcast dims (up to 6, leading dims first);
   sx/sy are the element strides of X and Y per output dim (0: broadcast). */
__kernel void eltwise(__global const float* x, __global const float* yv, __global float* out,
                      int op, long total, int d1, int d2, int d3, int d4, int d5,
                      long sx0, long sx1, long sx2, long sx3, long sx4, long sx5,
                      long sy0, long sy1, long sy2, long sy3, long sy4, long sy5) {
    const long i = get_global_id(0);
    if (i >= total) return;
    long r = i;
    const long i5 = r % d5; r /= d5;
    const long i4 = r % d4; r /= d4;
    const long i3 = r % d3; r /= d3;
    const long i2 = r % d2; r /= d2;
    const long i1 = r % d1; r /= d1;
    const long i0 = r;
    const float a = x[i0 * sx0 + i1 * sx1 + i2 * sx2 + i3 * sx3 + i4 * sx4 + i5 * sx5];
    const float b = yv[i0 * sy0 + i1 * sy1 + i2 * sy2 + i3 * sy3 + i4 * sy4 + i5 * sy5];
    out[i] = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
}

/* y = act(x * a[c] + b[c]) over planes of `plane` elements, C channels
   (batch_norm with precomputed a, b; a plain activation with has_affine 0). */
__kernel void affine_act(__global const float* x, __global const float* a,
                         __global const float* b, __global float* y, long total, int C,
                         long plane, int has_affine, int act, float p0, float p1, float p2) {
    const long i = get_global_id(0);
    if (i >= total) return;
    float v = x[i];
    if (has_affine) {
        const int c = (int)((i / plane) % C);
        v = v * a[c] + b[c];
    }
    y[i] = activate(v, act, p0, p1, p2);
}

/* Nearest resize through index maps computed on the host (Paddle's rules). */
__kernel void gather2d(__global const float* x, __global const int* rows,
                       __global const int* cols, __global float* y, int H, int W, int OH,
                       int OW) {
    const int ow = get_global_id(0), oh = get_global_id(1), pc = get_global_id(2);
    if (ow >= OW || oh >= OH) return;
    y[((long)pc * OH + oh) * OW + ow] = x[((long)pc * H + rows[oh]) * W + cols[ow]];
}

/* One input of a concat into its slice: outer x inner_src elements into rows
   of inner_dst at offset. */
__kernel void copy_slab(__global const float* src, __global float* dst, long total,
                        long inner_src, long inner_dst, long offset) {
    const long i = get_global_id(0);
    if (i >= total) return;
    dst[(i / inner_src) * inner_dst + offset + i % inner_src] = src[i];
}
)CLC";
}  // namespace detail

/// The OpenCL C source of the program: the generated `activate` and the kernels.
inline const std::string& program_source() {
    static const std::string source =
        detail::activation_source(ops::opencl_activations{}) + detail::kernels_source;
    return source;
}

}  // namespace litegraph::backends::opencl
