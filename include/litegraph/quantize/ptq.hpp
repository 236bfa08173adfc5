// Post-training quantisation: calibrate the activation ranges of a float
// Paddle graph on sample inputs and write it back in the quantize_linear /
// dequantize_linear form (docs/int8.md), which the loader reads and the
// quantize_int8 pass turns into int8 ops.
//
// Quantised: the activation input and the weight of every conv2d,
// depthwise_conv2d, mul, matmul and matmul_v2 whose weight is a float32
// parameter (4-D filter, per output channel; 2-D matrix, per column); and
// the input of the pools the int8 runtime can then keep in int8 (activation
// only, read as int8 by all its readers: quantize_int8's pass): an average
// pool whose input an elementwise_mul also reads (the squeeze-and-excite
// block: pool, gate convs, the gate times the input), and a max pool whose
// output a float op reads (a max pool whose readers are all quantized convs
// is int8 already).
// Activation scale (abs-max range s, step s / 127): `minmax` takes the
// largest |x| seen; `percentile` the given percentile of |x| over all samples;
// `mse` the range whose int8 rounding and clipping error over all samples is
// the least (both from a histogram of 2048 bins over [0, max], a second pass
// over the samples).  `mse` is the default: a range set by a few outliers
// leaves the bulk of a tensor on a handful of int8 steps (the inputs of
// depthwise convs after hardswish in PP-LCNet span [0, 578] with most values
// below 5), which minmax cannot see and a fixed percentile cuts blindly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::ptq {

enum class method { minmax, percentile, mse };

/// How the mixed-precision search judges an int8 configuration against the
/// float model on the samples (options::judge, criterion).
///   l2:     the relative L2 error of all float outputs is at most max_error.
///   argmax: for a sequence classifier (a CTC recognizer) whose first output
///           is [N, T, C] probabilities: the per-step argmax sequence of each
///           of the N rows of every sample, repeats merged and class 0 (the
///           CTC blank) dropped, equals the float model's, for all but at most
///           max_mismatch (a fraction) of the rows.
///   automatic: argmax when the first output looks like one (rank 3, C >= 2,
///           and on every sample each of its N x T rows is in [0, 1] and sums
///           to 1 within 1e-3: a softmax over the classes), else l2.
enum class criterion { automatic, l2, argmax };

struct options {
    method how = method::mse;
    double percentile = 99.99;  // for method::percentile
    /// Mixed precision: when the int8 model's outputs on the samples differ
    /// from the float model's by more than this relative error (L2 over all
    /// outputs), the ops whose quantization alone moves the outputs most stay
    /// float, one at a time, until the error is within it.  0 or less: every
    /// quantizable op becomes int8.
    double max_error = 0.05;
    /// What "within max_error" means: see `criterion`.  With argmax the ops stay
    /// float, in the same order of sensitivity, until the sequences agree;
    /// then each op kept float is tried in int8 again (least sensitive first)
    /// and stays int8 when the sequences still agree.
    criterion judge = criterion::automatic;
    /// argmax: the fraction of the sample rows whose decoded sequence may
    /// differ from the float model's (default 0: all agree).
    double max_mismatch = 0;
    /// Called after each calibration run: (pass, sample, samples, passes).
    std::function<void(int, int, int, int)> progress;
    /// Called after each op's sensitivity is measured (op, ops): only when
    /// the int8 model misses max_error.
    std::function<void(int, int)> checking;
};

/// What was quantised.
struct report {
    int ops = 0;                          // quantised ops
    int pools = 0;                        // of which pools (their input only)
    int activations = 0;                  // calibrated activation variables
    std::map<std::string, float> scales;  // activation name -> abs-max range
    int candidates = 0;                   // quantizable ops (ops + kept_float.size())
    /// Ops kept float by the error check: "type(input activation)" each.
    std::vector<std::string> kept_float;
    double error_all_int8 = 0;        // relative output error with every candidate int8
    double error = 0;                 // relative output error of the written model
    criterion judge = criterion::l2;  // the criterion used (never automatic)
    /// argmax: rows of the first output over all samples, and how many of
    /// them decode differently from the float model (all int8 / as written).
    int rows = 0, mismatches_all_int8 = 0, mismatches = 0;
};

namespace detail {

inline bool quantizable(const graph::graph& g, const graph::op_node& op, int& x, int& w,
                        int& axis) {
    const bool conv = op_declares<ops::conv2d>(op.type);
    const bool fc = op_declares<ops::mul>(op.type) || op_declares<ops::matmul>(op.type) ||
                    op_declares<ops::matmul_v2>(op.type);
    if (!conv && !fc) return false;
    x = graph::input_var(op, conv ? "Input" : "X");
    w = graph::input_var(op, conv ? "Filter" : "Y");
    if (x < 0 || w < 0) return false;
    const auto& wv = g.vars[w];
    if (!wv.value || wv.value->type() != dtype::f32) return false;
    if (wv.value->shape().size() != (conv ? 4u : 2u)) return false;
    if (g.vars[x].value) return false;  // both constant: folded anyway
    axis = conv ? 0 : 1;
    return true;
}

/// Whether pool2d `op` gets an activation-only site on its input (see the
/// top of this file): an average pool whose input an elementwise_mul also
/// reads, a max pool one of whose output's readers is not quantizable.
inline bool pool_site(const graph::graph& g, const graph::op_node& op, int& x) {
    if (!op_declares<ops::pool2d>(op.type)) return false;
    x = graph::input_var(op, "X");
    const int out = graph::output_var(op, "Out");
    if (x < 0 || out < 0 || g.vars[x].value) return false;
    if (op.attrs.get<std::string>("pooling_type", "max") != "max") {
        for (int c : g.vars[x].consumers)
            if (g.ops[c].type == ops::elementwise::type_of(ops::elementwise::kind::mul))
                return true;
        return false;
    }
    if (graph::is_fetched(g, out)) return true;
    for (int c : g.vars[out].consumers) {
        int cx, cw, axis;
        if (!quantizable(g, g.ops[c], cx, cw, axis) || cx != out) return true;
    }
    return false;
}

/// Adds quantize_linear -> dequantize_linear on `v`; returns the dequantized var.
inline int add_qdq(graph::graph& g, int v, const tensor& scale, int axis) {
    const std::string base = g.vars[v].name;
    const int s = graph::add_param(g, base + ".quant_scale", scale);
    const int z =
        graph::add_param(g, base + ".quant_zero_point", tensor(dtype::i32, scale.shape()));
    auto declare = [&](const std::string& name) {
        graph::var_node n;
        n.name = name;
        for (int k = 1; g.find_var(n.name) >= 0; ++k) n.name = name + "@" + std::to_string(k);
        n.shape = g.vars[v].value ? g.vars[v].value->shape() : g.vars[v].shape;
        return g.add_var(std::move(n));
    };
    const int q = declare(base + ".quantized"), d = declare(base + ".dequantized");
    attr_map a;
    a.set("bit_length", std::int32_t{8});
    a.set("quant_axis", std::int32_t{axis});
    a.set("round_type", std::int32_t{1});  // half away from zero, as the int8 kernels
    graph::op_node qop, dop;
    qop.type = ops::quantize_linear::paddle_types[0];
    qop.inputs = {{"X", {v}}, {"Scale", {s}}, {"ZeroPoint", {z}}};
    qop.outputs = {{"Y", {q}}};
    qop.attrs = a;
    dop.type = ops::dequantize_linear::paddle_types[0];
    dop.inputs = {{"X", {q}}, {"Scale", {s}}, {"ZeroPoint", {z}}};
    dop.outputs = {{"Y", {d}}};
    dop.attrs = a;
    g.ops.push_back(std::move(qop));
    g.ops.push_back(std::move(dop));
    return d;
}

inline tensor channel_absmax(const tensor& w, int axis) {
    const auto& s = w.shape();
    const std::int64_t c = s[static_cast<std::size_t>(axis)];
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= s[static_cast<std::size_t>(i)];
    for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < s.size(); ++i) inner *= s[i];
    std::vector<float> m(static_cast<std::size_t>(c), 0.f);
    const float* p = w.span<float>().data();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < c; ++k)
            for (std::int64_t i = 0; i < inner; ++i)
                m[static_cast<std::size_t>(k)] =
                    std::max(m[static_cast<std::size_t>(k)], std::abs(p[(o * c + k) * inner + i]));
    for (auto& v : m)
        if (!(v > 0.f)) v = 1e-8f;
    return tensor::from<float>({c}, m);
}

/// The clipping range c in (0, max] whose symmetric int8 quantization (step
/// c / 127) has the least squared error over the histogram `h` of |x| (equal
/// bins over [0, max]): values below c carry the rounding error step^2 / 12,
/// values above it the clipping error (x - c)^2, x at its bin's centre.
inline float mse_range(const std::vector<double>& h, float max) {
    const auto bins = h.size();
    const double width = static_cast<double>(max) / static_cast<double>(bins);
    // Suffix sums over the bins above k of the count, x and x^2.
    std::vector<double> n(bins + 1, 0.0), sx(bins + 1, 0.0), sxx(bins + 1, 0.0);
    for (std::size_t b = bins; b-- > 0;) {
        const double x = (static_cast<double>(b) + 0.5) * width;
        n[b] = n[b + 1] + h[b];
        sx[b] = sx[b + 1] + h[b] * x;
        sxx[b] = sxx[b + 1] + h[b] * x * x;
    }
    double best = -1, best_c = max;
    for (std::size_t k = 0; k < bins; ++k) {
        const double c = static_cast<double>(k + 1) * width, step = c / 127.0;
        const double below = n[0] - n[k + 1];
        const double clipped = sxx[k + 1] - 2 * c * sx[k + 1] + c * c * n[k + 1];
        const double err = below * step * step / 12.0 + clipped;
        if (best < 0 || err < best) best = err, best_c = c;
    }
    return static_cast<float>(best_c);
}

/// The CTC decode of one row of T steps of C class probabilities: the
/// argmax of each step (the first of equal maxima), repeats merged, class 0
/// (the blank) dropped.
inline std::vector<int> ctc_greedy(const float* p, std::int64_t steps, std::int64_t classes) {
    std::vector<int> out;
    int last = -1;
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* row = p + t * classes;
        const auto best = static_cast<int>(std::max_element(row, row + classes) - row);
        if (best != last && best != 0) out.push_back(best);
        last = best;
    }
    return out;
}

/// True when `v` (shape [N, T, C]) holds probabilities over C: each of its
/// N x T rows in [0, 1] summing to 1 within 1e-3.
inline bool softmax_rows(const std::vector<float>& v, const shape_t& shape) {
    if (shape.size() != 3 || shape[2] < 2) return false;
    const auto classes = static_cast<std::size_t>(shape[2]);
    if (v.empty() || v.size() % classes != 0) return false;
    for (std::size_t r = 0; r < v.size(); r += classes) {
        double sum = 0;
        for (std::size_t c = 0; c < classes; ++c) {
            const float x = v[r + c];
            if (!(x >= -1e-6f && x <= 1.f + 1e-6f)) return false;
            sum += x;
        }
        if (std::abs(sum - 1.0) > 1e-3) return false;
    }
    return true;
}

}  // namespace detail

/// Calibrates `g` on `samples` (one tensor per sample for feed 0; other
/// feeds keep `samples` of their own in `more`, unused here) and rewrites it
/// in place into the quantize_linear / dequantize_linear form.
inline report quantize(graph::graph& g, const std::vector<tensor>& samples,
                       const options& opt = {}) {
    if (samples.empty()) throw usage_error("quantize: no calibration samples");
    if (g.feeds.size() != 1)
        throw unsupported_error("quantize: calibration feeds one input; the model has " +
                                std::to_string(g.feeds.size()));
    // The quantisable ops and their activation inputs.
    struct site {
        int op, x, w, axis;  // w -1: a pool's input, activation only
    };
    std::vector<site> sites;
    std::vector<int> acts;
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
        int x, w = -1, axis = -1;
        if (!detail::quantizable(g, g.ops[i], x, w, axis) && !detail::pool_site(g, g.ops[i], x))
            continue;
        sites.push_back({i, x, w, axis});
        if (std::find(acts.begin(), acts.end(), x) == acts.end()) acts.push_back(x);
    }
    report r;
    if (sites.empty()) return r;

    // The float outputs of a run ([fetch][i]; empty for a non-float fetch).
    using outputs = std::vector<std::vector<float>>;
    auto read_outputs = [](const runtime::program& p, std::size_t fetches) {
        outputs o;
        for (std::size_t f = 0; f < fetches; ++f) {
            const auto& t = p.output(f);
            if (t.type == dtype::f32)
                o.emplace_back(t.as<float>(), t.as<float>() + t.numel());
            else
                o.emplace_back();
        }
        return o;
    };
    // The float model's outputs on the samples, read during calibration (the
    // model's own fetches come first), for the error check below.
    std::vector<outputs> reference;
    std::vector<shape_t> first_shape;  // of output 0, per sample

    // Calibration: the activations become outputs so that they stay readable.
    graph::graph cg = g;
    for (std::size_t k = 0; k < acts.size(); ++k)
        if (!graph::is_fetched(cg, acts[k]))
            cg.fetches.push_back({acts[k], 1000000 + static_cast<int>(k)});
    runtime::program prog(std::move(cg));
    const int passes = opt.how == method::minmax ? 1 : 2;
    const auto n = static_cast<int>(samples.size());
    std::vector<float> absmax(acts.size(), 0.f);
    constexpr int bins = 2048;
    std::vector<std::vector<double>> hist(acts.size());
    // The program holds a copy of `g`: the same variable indices.
    auto var_values = [&](std::size_t k) -> const tensor_ref& { return prog.var(acts[k]); };
    for (int pass = 0; pass < passes; ++pass) {
        for (int s = 0; s < n; ++s) {
            prog.set_input(0, samples[static_cast<std::size_t>(s)]);
            prog.run();
            if (pass == 0 && opt.max_error > 0) {
                reference.push_back(read_outputs(prog, g.fetches.size()));
                first_shape.push_back(g.fetches.empty() ? shape_t{} : prog.output(0).shape);
            }
            for (std::size_t k = 0; k < acts.size(); ++k) {
                const auto& t = var_values(k);
                if (t.type != dtype::f32) continue;
                const float* p = t.as<float>();
                const std::int64_t m = t.numel();
                if (pass == 0) {
                    float mx = absmax[k];
                    for (std::int64_t i = 0; i < m; ++i) mx = std::max(mx, std::abs(p[i]));
                    absmax[k] = mx;
                } else {
                    auto& h = hist[k];
                    if (h.empty()) h.assign(bins, 0.0);
                    const float scale = absmax[k] > 0.f ? bins / absmax[k] : 0.f;
                    for (std::int64_t i = 0; i < m; ++i) {
                        const auto b = std::min<std::int64_t>(
                            bins - 1, static_cast<std::int64_t>(std::abs(p[i]) * scale));
                        h[static_cast<std::size_t>(b)] += 1.0;
                    }
                }
            }
            if (opt.progress) opt.progress(pass, s + 1, n, passes);
        }
    }
    std::vector<float> range(acts.size());
    for (std::size_t k = 0; k < acts.size(); ++k) {
        range[k] = absmax[k];
        if (opt.how == method::percentile && !hist[k].empty()) {
            double total = 0;
            for (double c : hist[k]) total += c;
            double acc = 0;
            for (int b = 0; b < bins; ++b) {
                acc += hist[k][static_cast<std::size_t>(b)];
                if (acc >= total * opt.percentile / 100.0) {
                    range[k] = absmax[k] * static_cast<float>(b + 1) / bins;
                    break;
                }
            }
        }
        if (opt.how == method::mse && !hist[k].empty())
            range[k] = detail::mse_range(hist[k], absmax[k]);
        if (!(range[k] > 0.f)) range[k] = 1e-8f;
        r.scales[g.vars[acts[k]].name] = range[k];
    }

    // The rewrite of the chosen sites: one quant-dequant pair per activation
    // and per weight.
    auto rewrite = [&](graph::graph& q, const std::vector<bool>& on) {
        std::map<int, int> act_dq, w_dq;
        for (std::size_t i = 0; i < sites.size(); ++i) {
            if (!on[i]) continue;
            const auto& st = sites[i];
            if (!act_dq.count(st.x)) {
                const auto k = static_cast<std::size_t>(std::find(acts.begin(), acts.end(), st.x) -
                                                        acts.begin());
                act_dq[st.x] = detail::add_qdq(
                    q, st.x, tensor::from<float>({1}, std::vector<float>{range[k]}), -1);
            }
            if (st.w >= 0 && !w_dq.count(st.w))
                w_dq[st.w] = detail::add_qdq(
                    q, st.w, detail::channel_absmax(*q.vars[st.w].value, st.axis), st.axis);
            auto redirect = [&](graph::op_node& op) {
                for (auto& sl : op.inputs)
                    for (auto& v : sl.vars) {
                        if (v == st.x) v = act_dq[st.x];
                        if (st.w >= 0 && v == st.w) v = w_dq[st.w];
                    }
            };
            redirect(q.ops[static_cast<std::size_t>(st.op)]);
            // A pool's input is int8 for the block's multiply too (the SE
            // gate times the input): it reads the same quantized values.
            if (st.w < 0)
                for (auto& op : q.ops)
                    if (op.type == ops::elementwise::type_of(ops::elementwise::kind::mul))
                        redirect(op);
        }
        q.relink();
    };
    // The relative L2 error of a rewrite's outputs against the float model's
    // on the samples (quant-dequant simulated in float, as the int8 kernels
    // compute it up to rounding).
    auto outputs_of = [&](const graph::graph& q) {
        runtime::program p(q);
        std::vector<outputs> out;
        for (const auto& sample : samples) {
            p.set_input(0, sample);
            p.run();
            out.push_back(read_outputs(p, q.fetches.size()));
        }
        return out;
    };
    // The relative L2 error, and (argmax) the rows whose decode differs.
    struct verdict {
        double error = 0;
        int mismatches = 0;
    };
    // The decoded rows of the float model's first output, for argmax.
    std::vector<std::vector<int>> decoded;
    auto decode_rows = [&](const outputs& o, const shape_t& shape,
                           std::vector<std::vector<int>>& rows) {
        const auto t = shape[1], c = shape[2];
        for (std::int64_t n = 0; n < shape[0]; ++n)
            rows.push_back(detail::ctc_greedy(o[0].data() + n * t * c, t, c));
    };
    auto judge_of = [&](const std::vector<bool>& on) {
        graph::graph q = g;  // g itself is rewritten last
        rewrite(q, on);
        const auto got = outputs_of(q);
        verdict v;
        double num = 0, den = 0;
        for (std::size_t s = 0; s < got.size(); ++s)
            for (std::size_t f = 0; f < got[s].size(); ++f) {
                const auto& x = got[s][f];
                const auto& y = reference[s][f];
                for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
                    const double d = static_cast<double>(x[i]) - y[i];
                    num += d * d;
                    den += static_cast<double>(y[i]) * y[i];
                }
            }
        v.error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
        if (r.judge == criterion::argmax) {
            std::vector<std::vector<int>> rows;
            for (std::size_t s = 0; s < got.size(); ++s) {
                if (got[s].empty() || got[s][0].size() != reference[s][0].size())
                    throw shape_error(
                        "quantize: the int8 model's first output differs in size "
                        "from the float model's");
                decode_rows(got[s], first_shape[s], rows);
            }
            for (std::size_t i = 0; i < rows.size(); ++i) v.mismatches += rows[i] != decoded[i];
        }
        return v;
    };
    std::vector<bool> on(sites.size(), true);
    r.candidates = static_cast<int>(sites.size());
    if (opt.max_error > 0) {
        r.judge = opt.judge;
        if (r.judge == criterion::automatic) {
            bool probs = !reference.empty();
            for (std::size_t s = 0; s < reference.size() && probs; ++s)
                probs =
                    !reference[s].empty() && detail::softmax_rows(reference[s][0], first_shape[s]);
            r.judge = probs ? criterion::argmax : criterion::l2;
        }
        if (r.judge == criterion::argmax) {
            for (std::size_t s = 0; s < reference.size(); ++s) {
                const auto& sh = first_shape[s];
                if (reference[s].empty() || sh.size() != 3 || sh[2] < 1 ||
                    static_cast<std::int64_t>(reference[s][0].size()) != sh[0] * sh[1] * sh[2])
                    throw usage_error(
                        "quantize: judging by the argmax sequence needs a float first output of "
                        "shape [N, T, C]; this model's is " +
                        to_string(sh));
                decode_rows(reference[s], sh, decoded);
            }
            r.rows = static_cast<int>(decoded.size());
        }
        const auto allowed =
            static_cast<int>(std::floor(opt.max_mismatch * static_cast<double>(r.rows) + 1e-9));
        auto accepted = [&](const verdict& v) {
            return r.judge == criterion::argmax ? v.mismatches <= allowed
                                                : v.error <= opt.max_error;
        };
        auto v = judge_of(on);
        r.error = r.error_all_int8 = v.error;
        r.mismatches = r.mismatches_all_int8 = v.mismatches;
        if (!accepted(v)) {
            // Sensitivity: the L2 error with each site alone in int8.
            std::vector<std::pair<double, std::size_t>> alone;
            for (std::size_t i = 0; i < sites.size(); ++i) {
                std::vector<bool> one(sites.size(), false);
                one[i] = true;
                alone.push_back({judge_of(one).error, i});
                if (opt.checking) opt.checking(static_cast<int>(i) + 1, r.candidates);
            }
            std::sort(alone.begin(), alone.end(), std::greater<>());
            std::vector<std::size_t> kept;
            for (const auto& [e, i] : alone) {
                if (accepted(v)) break;
                on[i] = false;
                v = judge_of(on);
                kept.push_back(i);
            }
            // argmax: a sequence criterion is not monotonic in the ops kept
            // float, so each one goes back to int8 (least sensitive first)
            // when the sequences still agree without it.
            if (r.judge == criterion::argmax && accepted(v))
                for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
                    on[*it] = true;
                    auto w = judge_of(on);
                    if (accepted(w))
                        v = w;
                    else
                        on[*it] = false;
                }
            r.error = v.error;
            r.mismatches = v.mismatches;
            for (const auto& [e, i] : alone)
                if (!on[i]) {
                    const auto& op = g.ops[static_cast<std::size_t>(sites[i].op)];
                    r.kept_float.push_back(op.type + "(" + g.vars[sites[i].x].name + ")");
                }
        }
    }
    rewrite(g, on);
    r.ops = static_cast<int>(std::count(on.begin(), on.end(), true));
    for (std::size_t i = 0; i < sites.size(); ++i) r.pools += on[i] && sites[i].w < 0;
    std::set<int> used;
    for (std::size_t i = 0; i < sites.size(); ++i)
        if (on[i]) used.insert(sites[i].x);
    r.activations = static_cast<int>(used.size());
    for (std::size_t k = 0; k < acts.size(); ++k)
        if (!used.count(acts[k])) r.scales.erase(g.vars[acts[k]].name);
    return r;
}

}  // namespace litegraph::ptq
