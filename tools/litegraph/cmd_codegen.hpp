// litegraph codegen: a model as a compile-time network for firmware.
//
// Loads the model as a session does (passes, program) and prepares its plan on the
// desktop (shapes, folded constants, execution order, alias groups), then
// writes one self-contained header in the vocabulary of static/network.hpp:
// the weights as constexpr arrays, the layers as one constexpr network of the
// fused kernel types, the buffers to plan and the compile-time plan with its
// static_assert, and one array per memory segment for the activations.
#pragma once

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "cmd_plan.hpp"
#include "cmd_run.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/matmul.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/ops/softmax.hpp"
#include "options.hpp"

namespace litegraph::cli {

namespace codegen_detail {

/// A float as an exact C++ literal (hex float).
inline std::string float_literal(float v, const std::string& where) {
    if (!std::isfinite(v))
        throw unsupported_error(where + " holds a non-finite value, which a constexpr array " +
                                "cannot spell");
    if (v == 0.f) return std::signbit(v) ? "-0.f" : "0.f";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
    return buf;
}

inline std::string upper(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : (c == '-' ? '_' : c));
    return s;
}

inline bool is_identifier(const std::string& s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    return true;
}

/// An activation functor's field as a C++ literal.
inline std::string field_literal(bool v, const std::string&) {
    return v ? "true" : "false";
}
inline std::string field_literal(float v, const std::string& where) {
    return float_literal(v, where);
}

/// The C++ type of an activation functor and its initializer: the functor of
/// ops::activation_functors named `act`, its fields (ops::fields_of) as an
/// aggregate initializer.
inline std::pair<std::string, std::string> functor(const std::string& act, const attr_map& a,
                                                   const std::string& where) {
    std::pair<std::string, std::string> out;
    const bool found = ops::any_functor(ops::activation_functors{}, [&]<class F>() {
        if (F::paddle_type != act) return false;
        std::string init;
        std::apply(
            [&](auto... v) {
                ((init += (init.empty() ? "" : ", ") + field_literal(v, where)), ...);
            },
            ops::fields_of(F::parse(a)));
        out = {"litegraph::ops::act::" + std::string(F::paddle_type), "{" + init + "}"};
        return true;
    });
    if (!found)
        throw unsupported_error(where + ": activation '" + act + "' has no compile-time form");
    return out;
}

struct generator {
    runtime::program& prog;
    std::string ns;
    std::vector<std::string> seg_names;
    std::vector<planner::segment> segs;

    std::ostringstream weights;  // the weight arrays
    std::ostringstream layers;   // the layer initializers
    std::map<const std::byte*, std::string> weight_names;
    std::size_t weight_bytes = 0;
    int layer_count = 0;

    const graph::graph& g() const { return prog.graph(); }
    int var_of(const tensor_ref* r) const { return static_cast<int>(r - &prog.var(0)); }

    std::string at(const tensor_ref* r, const std::string& where) const {
        const int v = var_of(r);
        auto [b, off] = prog.var_buffers()[static_cast<std::size_t>(v)];
        if (b < 0)
            throw unsupported_error(where + ": tensor '" + g().vars[v].name +
                                    "' is not a planned activation");
        return "{" + std::to_string(b) + ", " + std::to_string(off) + "}";
    }
    bool is_constant(const tensor_ref* r) const {
        return r->data && prog.var_buffers()[static_cast<std::size_t>(var_of(r))].first < 0;
    }
    /// The name of a constant's weight array (written once per tensor).
    std::string weight(const tensor_ref* r, const std::string& where) {
        if (!is_constant(r))
            throw unsupported_error(where + ": '" + std::string(r->name) +
                                    "' must be a constant (weights) in a compile-time network");
        if (r->type != dtype::f32 && r->type != dtype::i8)
            throw unsupported_error(where + ": constant '" + std::string(r->name) + "' is " +
                                    std::string(name_of(r->type)) +
                                    ", only float32 and int8 are supported");
        if (auto it = weight_names.find(r->data); it != weight_names.end()) return it->second;
        std::string name = "w" + std::to_string(weight_names.size());
        weight_names[r->data] = name;
        const auto n = static_cast<std::size_t>(r->numel());
        const bool i8 = r->type == dtype::i8;
        weight_bytes += n * (i8 ? 1 : 4);
        weights << "// " << r->name << " " << to_string(r->shape) << (i8 ? " int8" : "") << "\n"
                << "alignas(16) " << upper(ns) << "_WEIGHTS_ATTR constexpr "
                << (i8 ? "std::int8_t " : "float ") << name << "[" << n << "] = {";
        for (std::size_t i = 0; i < n; ++i) {
            if (i % (i8 ? 24 : 8) == 0) weights << "\n";
            if (i8)
                weights << static_cast<int>(r->as<std::int8_t>()[i]) << ",";
            else
                weights << float_literal(r->as<float>()[i], std::string(r->name)) << ",";
        }
        weights << "};\n";
        return "weights::" + name;
    }

    static const tensor_ref* in(const op_io& io, const char* slot) {
        return io.input_count(slot) ? &io.input(slot) : nullptr;
    }

    void layer(const std::string& text) {
        layers << (layer_count++ ? ",\n" : "") << "    " << text;
    }

    void conv(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto act = node.attrs.get<std::string>("activation", "");
        const auto term = node.attrs.get<std::string>("terminal", "store");
        const std::string fz = "litegraph::fusion::";
        std::vector<std::pair<std::string, std::string>> stages;  // type, initializer
        if (!in(io, "Bias")) throw unsupported_error(where + ": a fused conv without Bias");
        stages.push_back({fz + "bias", "{}"});
        if (term == "store" || term == "add_with") {
            if (!act.empty()) {
                auto [t, init] = functor(act, node.attrs, where);
                stages.push_back({fz + "act<" + t + ">", "{" + t + init + "}"});
            }
            if (term == "add_with") stages.push_back({fz + "add_with", "{}"});
        } else if (term == "mul_plane" || term == "mul_with") {
            auto [t, init] = functor(act, node.attrs, where);
            const std::string gt = fz + "gate<" + t + ", " + fz + term + ">";
            stages.push_back({gt, "{" + t + init + ", {}}"});
        } else {
            throw unsupported_error(where + ": terminal '" + term + "'");
        }
        std::string type = "litegraph::fusion::fused<litegraph::ops::conv2d";
        for (auto& s : stages) type += ", " + s.first;
        type += ">";
        auto p = ops::conv2d::parse(node.attrs, "fused_conv2d");
        auto geo = ops::conv2d::resolve(p, io);
        std::ostringstream o;
        o << "conv<" << type << ">{{" << geo.n << ", " << geo.c << ", " << geo.h << ", " << geo.w
          << ", " << geo.oc << ", " << geo.kh << ", " << geo.kw << ", " << geo.oh << ", " << geo.ow
          << ", " << geo.sh << ", " << geo.sw << ", " << geo.dh << ", " << geo.dw << ", " << geo.pt
          << ", " << geo.pb << ", " << geo.pl << ", " << geo.pr << ", " << geo.groups << "}, "
          << weight(in(io, "Filter"), where) << ", " << weight(in(io, "Bias"), where) << ", {";
        for (std::size_t i = 0; i < stages.size(); ++i)
            o << (i ? ", " : "") << stages[i].first << stages[i].second;
        const auto* x = in(io, "Input");
        const auto* out = &io.output("Output");
        const auto* other = in(io, "Other");
        std::int64_t other_plane = 1;
        if (other && other->shape.size() == 4) other_plane = other->shape[2] * other->shape[3];
        const bool in_place = prog.var_buffers()[var_of(x)] == prog.var_buffers()[var_of(out)];
        o << "}, " << at(x, where) << ", " << at(out, where) << ", "
          << (other ? at(other, where) : std::string("{-1, 0}")) << ", " << other_plane << ", "
          << (in_place ? "true" : "false");
        if (const auto* scale = in(io, "Scale")) o << ", " << weight(scale, where);
        o << "}";
        layer(o.str());
    }

    static std::string geometry(const ops::conv2d::geometry& geo) {
        std::ostringstream o;
        o << "{" << geo.n << ", " << geo.c << ", " << geo.h << ", " << geo.w << ", " << geo.oc
          << ", " << geo.kh << ", " << geo.kw << ", " << geo.oh << ", " << geo.ow << ", " << geo.sh
          << ", " << geo.sw << ", " << geo.dh << ", " << geo.dw << ", " << geo.pt << ", " << geo.pb
          << ", " << geo.pl << ", " << geo.pr << ", " << geo.groups << "}";
        return o.str();
    }

    /// fused_conv2d_int8: the same fusion::fused_int8<Stages...> the runtime
    /// dispatches to (rescale and bias are implied by the type).
    void conv_int8(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto act = node.attrs.get<std::string>("activation", "");
        const auto term = node.attrs.get<std::string>("terminal", "store");
        const std::string fz = "litegraph::fusion::";
        std::vector<std::pair<std::string, std::string>> stages{{fz + "rescale", "{}"},
                                                                {fz + "bias", "{}"}};
        if (term == "store" || term == "quantize_store" || term == "add_with") {
            if (!act.empty()) {
                auto [t, init] = functor(act, node.attrs, where);
                stages.push_back({fz + "act<" + t + ">", "{" + t + init + "}"});
            }
            if (term != "store") stages.push_back({fz + term, "{}"});
        } else if (term == "mul_plane" || term == "mul_with") {
            auto [t, init] = functor(act, node.attrs, where);
            stages.push_back({fz + "gate<" + t + ", " + fz + term + ">", "{" + t + init + ", {}}"});
        } else {
            throw unsupported_error(where + ": terminal '" + term + "'");
        }
        std::string type = "litegraph::fusion::fused_int8<";
        for (std::size_t i = 2; i < stages.size(); ++i)
            type += (i > 2 ? ", " : "") + stages[i].first;
        type += ">";
        auto p = ops::conv2d::parse(node.attrs, "fused_conv2d_int8");
        auto geo = ops::conv2d::resolve(p, io, dtype::i8);
        const auto* x = in(io, "Input");
        const auto* out = &io.output("Output");
        const auto* other = in(io, "Other");
        if (prog.var_buffers()[var_of(x)] == prog.var_buffers()[var_of(out)])
            throw unsupported_error(where + ": an int8 conv planned in place of its input");
        std::int64_t other_plane = 1;
        if (other && other->shape.size() == 4) other_plane = other->shape[2] * other->shape[3];
        const float step =
            term == "quantize_store" ? node.attrs.get<float>("output_step", 0.f) : 0.f;
        std::ostringstream o;
        o << "conv_int8<" << type << ">{" << geometry(geo) << ", "
          << weight(in(io, "Filter"), where) << ", " << weight(in(io, "Multiplier"), where) << ", "
          << weight(in(io, "Bias"), where) << ", " << float_literal(step, where) << ", {";
        for (std::size_t i = 0; i < stages.size(); ++i)
            o << (i ? ", " : "") << stages[i].first << stages[i].second;
        o << "}, " << at(x, where) << ", " << at(out, where) << ", "
          << (other ? at(other, where) : std::string("{-1, 0}")) << ", " << other_plane << "}";
        layer(o.str());
    }

    /// mul_int8: the int8 fc, its requantize chain implied by output_step.
    void fc_int8(const graph::op_node& node, const op_io& io, const std::string& where) {
        auto p = ops::mul_int8::parse(node.attrs, "mul_int8");
        auto d = ops::mul_int8::check(p, io, nullptr);
        std::ostringstream o;
        o << "fc_int8{" << d.m << ", " << d.k << ", " << d.n << ", " << weight(in(io, "Y"), where)
          << ", " << weight(in(io, "Multiplier"), where) << ", "
          << float_literal(p.output_step, where) << ", " << at(in(io, "X"), where) << ", "
          << at(&io.output("Out"), where) << "}";
        layer(o.str());
    }

    void quantize(const graph::op_node& node, const op_io& io, const std::string& where,
                  bool to_int8) {
        const auto* x = in(io, "X");
        const auto* out = &io.output("Out");
        const float step = node.attrs.get<float>("step", 0.f);
        layer(std::string(to_int8 ? "quantize" : "dequantize") + "{" + float_literal(step, where) +
              ", " + std::to_string(out->numel()) + ", " + at(x, where) + ", " + at(out, where) +
              "}");
    }

    void pool(const graph::op_node& node, const op_io& io, const std::string& where) {
        const bool i8 = node.type == "pool2d_int8";
        auto p = ops::pool2d::parse(node.attrs, "pool2d");
        auto geo = ops::pool2d::resolve(p, io, i8 ? dtype::i8 : dtype::f32);
        std::ostringstream o;
        o << (i8 ? "pool_int8{{" : "pool{{") << (p.max ? "true" : "false") << ", "
          << (p.exclusive ? "true" : "false") << ", " << (p.adaptive ? "true" : "false") << "}, {"
          << geo.n << ", " << geo.c << ", " << geo.h << ", " << geo.w << ", " << geo.kh << ", "
          << geo.kw << ", " << geo.sh << ", " << geo.sw << ", " << geo.pt << ", " << geo.pl << ", "
          << geo.pb << ", " << geo.pr << ", " << geo.oh << ", " << geo.ow << "}, "
          << at(in(io, "X"), where) << ", " << at(&io.output("Out"), where) << "}";
        layer(o.str());
    }

    void matmul(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto* x = in(io, "X");
        const auto* y = in(io, "Y");
        std::int64_t m = 0, k = 0, n = 0;
        bool tx = false, ty = false;
        float alpha = 1.f;
        if (node.type == "mul") {
            auto p = ops::mul::parse(node.attrs, "mul");
            auto d = ops::mul::check(p, io, nullptr);
            m = d.M, k = d.K, n = d.N;
        } else if (node.type == "matmul") {
            auto p = ops::matmul::parse(node.attrs, "matmul");
            auto pl = ops::matmul::make_plan(p, io);
            if (pl.x.batch > 1 || pl.y.batch > 1)
                throw unsupported_error(where + ": a batched matmul");
            m = pl.x.h, k = pl.x.w, n = pl.y.w, tx = p.transpose_x, ty = p.transpose_y;
            alpha = p.alpha;
        } else {
            auto p = ops::matmul_v2::parse(node.attrs, "matmul_v2");
            auto pl = ops::matmul_v2::make_plan(p, io);
            if (numel(pl.ob) > 1) throw unsupported_error(where + ": a batched matmul_v2");
            m = pl.M, k = pl.K, n = pl.N, tx = pl.tx, ty = pl.ty;
        }
        std::ostringstream o;
        o << "matmul{" << m << ", " << k << ", " << n << ", " << (tx ? "true" : "false") << ", "
          << (ty ? "true" : "false") << ", " << float_literal(alpha, where) << ", "
          << weight(y, where) << ", " << at(x, where) << ", " << at(&io.output("Out"), where)
          << "}";
        layer(o.str());
    }

    void add(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto* x = in(io, "X");
        const auto* y = in(io, "Y");
        const auto* out = &io.output("Out");
        auto bd = ops::paddle_broadcast(x->shape, y->shape, node.attrs.get<int>("axis", -1), io);
        if (bd.x != bd.out || x->type != dtype::f32 || y->type != dtype::f32)
            throw unsupported_error(where + ": elementwise_add where X " + to_string(x->shape) +
                                    " broadcasts (or is not float32)");
        // Y must cover one run of dims [a, b) of the output exactly.
        std::size_t a = 0, b = bd.y.size();
        while (a < b && bd.y[a] == 1) ++a;
        while (b > a && bd.y[b - 1] == 1) --b;
        std::int64_t count = 1, post = 1;
        for (std::size_t i = a; i < b; ++i) {
            if (bd.y[i] != bd.out[i])
                throw unsupported_error(where + ": elementwise_add with Y " + to_string(y->shape) +
                                        " broadcasting inside X " + to_string(x->shape));
            count *= bd.y[i];
        }
        for (std::size_t i = b; i < bd.out.size(); ++i) post *= bd.out[i];
        std::ostringstream o;
        o << "add{" << out->numel() << ", " << count << ", " << post << ", "
          << (is_constant(y) ? weight(y, where) : std::string("nullptr")) << ", " << at(x, where)
          << ", " << (is_constant(y) ? std::string("{-1, 0}") : at(y, where)) << ", "
          << at(out, where) << "}";
        layer(o.str());
    }

    void softmax(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto* x = in(io, "X");
        auto p = ops::softmax::parse(node.attrs, "softmax");
        const auto ax = ops::softmax::axis_of(p, x->shape.size(), io);
        std::int64_t outer = 1, n = 1, inner = 1;
        for (std::size_t i = 0; i < x->shape.size(); ++i)
            (i < ax ? outer : (i == ax ? n : inner)) *= x->shape[i];
        std::ostringstream o;
        o << "softmax{" << outer << ", " << n << ", " << inner << ", " << at(x, where) << ", "
          << at(&io.output("Out"), where) << "}";
        layer(o.str());
    }

    void activation(const graph::op_node& node, const op_io& io, const std::string& where) {
        const auto* x = in(io, "X");
        const auto* out = &io.output("Out");
        auto [t, init] = functor(node.type, node.attrs, where);
        layer("unary<" + t + ">{" + t + init + ", " + std::to_string(out->numel()) + ", " +
              at(x, where) + ", " + at(out, where) + "}");
    }

    void copy(const op_io& io, const std::string& where) {
        const auto* x = in(io, "X");
        const auto* out = &io.output("Out");
        if (x->bytes() != out->bytes())
            throw unsupported_error(where + ": a reshape that changes the byte count");
        layer("copy{" + std::to_string(x->bytes()) + ", " + at(x, where) + ", " + at(out, where) +
              "}");
    }

    void emit_layers() {
        for (int i : prog.execution_order()) {
            const auto& ins = prog.instructions()[static_cast<std::size_t>(i)];
            if (ins.elided) continue;
            const auto& node = g().ops[ins.op];
            const std::string where = "op " + node.type + " ('" + ins.io.label + "')";
            const auto& t = node.type;
            if (t == "fused_conv2d")
                conv(node, ins.io, where);
            else if (t == "fused_conv2d_int8")
                conv_int8(node, ins.io, where);
            else if (t == "mul_int8")
                fc_int8(node, ins.io, where);
            else if (t == "quantize_int8" || t == "dequantize_int8")
                quantize(node, ins.io, where, t == "quantize_int8");
            else if (t == "pool2d" || t == "pool2d_int8")
                pool(node, ins.io, where);
            else if (t == "matmul" || t == "matmul_v2" || t == "mul")
                matmul(node, ins.io, where);
            else if (t == "elementwise_add")
                add(node, ins.io, where);
            else if (t == "softmax")
                softmax(node, ins.io, where);
            else if (ops::names_functor<ops::activation_functors>(t))
                activation(node, ins.io, where);
            else if (t == "reshape2" || t == "flatten2" || t == "squeeze2" || t == "unsqueeze2" ||
                     t == "flatten_contiguous_range")
                copy(ins.io, where);
            else
                throw unsupported_error(
                    where +
                    " has no compile-time form yet (fused_conv2d, "
                    "fused_conv2d_int8, (de)quantize_int8, pool2d(_int8), matmul, mul, mul_int8, "
                    "elementwise_add, activations, "
                    "softmax and reshapes do)");
        }
    }

    std::string io_list(bool inputs) const {
        std::ostringstream o;
        const std::size_t n = inputs ? prog.input_count() : prog.output_count();
        for (std::size_t i = 0; i < n; ++i) {
            const auto& v = inputs ? prog.input_var(i) : prog.output_var(i);
            const int vi = inputs ? g().feeds[i].var : g().fetches[i].var;
            const auto& r = prog.var(vi);
            if (r.type != dtype::f32)
                throw unsupported_error(std::string(inputs ? "input" : "output") + " '" + v.name +
                                        "' is " + std::string(name_of(r.type)) +
                                        ", only float32 is supported");
            o << "    {\"" << v.name << "\", " << at(&r, v.name) << ", " << r.numel() << "},\n";
        }
        return o.str();
    }

    std::string header(const std::string& source, bool sample) {
        emit_layers();
        const auto& bufs = prog.buffers();
        const std::string NS = upper(ns);
        std::ostringstream h;
        h << "// Generated by `litegraph codegen` from " << source
          << ": do not edit.\n"
             "// A compile-time network (litegraph/static/network.hpp): constexpr weights, the\n"
             "// layers as fused kernel types, and a memory plan the compiler checks.\n"
             "//\n"
             "// Place the arrays by defining before the include (default: no attribute):\n"
             "//   "
          << NS << "_WEIGHTS_ATTR, " << NS << "_SCRATCH_ATTR";
        for (auto& s : seg_names) h << ", " << NS << "_" << upper(s) << "_ATTR";
        h << "\n//   e.g. #define " << NS << "_" << upper(seg_names[0])
          << "_ATTR __attribute__((section(\"." << seg_names[0] << "_bss\")))\n"
          << "#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n\n"
             "#include \"litegraph/static/network.hpp\"\n\n";
        for (std::string m : [&] {
                 std::vector<std::string> v{NS + "_WEIGHTS_ATTR", NS + "_SCRATCH_ATTR"};
                 for (auto& s : seg_names) v.push_back(NS + "_" + upper(s) + "_ATTR");
                 return v;
             }())
            h << "#ifndef " << m << "\n#define " << m << "\n#endif\n";
        h << "\nnamespace " << ns << " {\n\n"
          << "/// Bytes of all weights (constexpr arrays, in flash).\n"
          << "inline constexpr std::size_t weight_bytes = " << weight_bytes << ";\n\n"
          << "namespace weights {\n"
          << weights.str() << "}  // namespace weights\n\n";
        h << "/// The activations to plan (alias groups of the runtime program): bytes,\n"
             "/// first and last step of the execution order.\n"
             "inline constexpr std::size_t buffer_table["
          << bufs.size() << "][3] = {";
        for (std::size_t i = 0; i < bufs.size(); ++i)
            h << (i % 4 == 0 ? "\n    " : " ") << "{" << bufs[i].size << ", " << bufs[i].first
              << ", " << bufs[i].last << "},";
        h << "};\n"
          << "inline constexpr auto buffers = litegraph::planner::buffers_from(buffer_table);\n"
          << "inline constexpr std::array<litegraph::planner::segment, " << segs.size()
          << "> segments{{";
        for (std::size_t s = 0; s < segs.size(); ++s)
            h << (s ? ", " : "") << "{\"" << seg_names[s] << "\", " << segs[s].capacity << "u, "
              << segs[s].alignment << "}";
        h << "}};\n"
          << "/// The plan, computed by the compiler; the build stops here when it does\n"
             "/// not fit, and BytesShort in the message says by how much.\n"
             "inline constexpr auto plan = litegraph::planner::plan_fixed(buffers, segments);\n"
             "static_assert(litegraph::planner::network_fits<plan.shortfall>());\n"
             "static_assert(plan.valid, \"litegraph codegen: the compile-time plan fails "
             "validation\");\n\n";
        h << "/// The activation arrays, one per segment, fastest first.\n";
        for (std::size_t s = 0; s < segs.size(); ++s)
            h << "inline constexpr std::size_t " << seg_names[s]
              << "_bytes = litegraph::static_net::array_bytes(plan.used[" << s << "]);\n"
              << "alignas(64) inline std::byte " << seg_names[s] << "[" << seg_names[s]
              << "_bytes] " << NS << "_" << upper(seg_names[s]) << "_ATTR;\n";
        h << "inline std::byte* const segment_bases[] = {";
        for (std::size_t s = 0; s < segs.size(); ++s) h << (s ? ", " : "") << seg_names[s];
        h << "};\n\n";
        h << "/// The layers in execution order.\n"
             "inline constexpr auto network = [] {\n"
             "    using namespace litegraph::static_net;\n"
             "    return make_network(\n"
          << layers.str() << ");\n}();\n\n"
          << "/// Scratch of the hungriest layer (row buffers, pooling windows).\n"
             "inline constexpr std::size_t scratch_bytes = network.scratch_bytes();\n"
             "alignas(16) inline std::byte scratch[scratch_bytes] "
          << NS << "_SCRATCH_ATTR;\n\n"
          << "inline constexpr litegraph::static_net::memory<buffers.size(), segments.size()> "
             "memory{&plan, segment_bases, scratch};\n\n"
          << "struct io_tensor {\n    const char* name;\n"
             "    litegraph::static_net::tensor_at at;\n    std::size_t elements;\n};\n"
          << "inline constexpr io_tensor inputs[] = {\n"
          << io_list(true) << "};\n"
          << "inline constexpr io_tensor outputs[] = {\n"
          << io_list(false) << "};\n\n"
          << "/// Where input i goes before run() (float32, "
          << "row-major).\n"
             "inline float* input(std::size_t i = 0) {\n"
             "    return memory.f32(inputs[i].at);\n}\n"
             "/// Output i after run(); valid until the next run.\n"
             "inline const float* output(std::size_t i = 0) {\n"
             "    return memory.f32(outputs[i].at);\n}\n"
             "/// One inference: no heap, no exceptions.\n"
             "inline void run() {\n    network.run(memory);\n}\n";
        if (sample) {
            h << "\n/// The deterministic input `litegraph run` feeds (sin(0.37 i) cos(0.011 "
                 "i)).\n";
            for (std::size_t i = 0; i < prog.input_count(); ++i) {
                const auto& r = prog.var(g().feeds[i].var);
                auto t = deterministic_input(r.type, r.shape);
                h << "inline constexpr float sample_input_" << i << "[" << t.numel() << "] = {";
                const float* p = reinterpret_cast<const float*>(t.data());
                for (std::int64_t k = 0; k < t.numel(); ++k)
                    h << (k % 8 == 0 ? "\n    " : " ") << float_literal(p[k], "sample input")
                      << ",";
                h << "};\n";
            }
            h << "inline constexpr const float* sample_inputs[] = {";
            for (std::size_t i = 0; i < prog.input_count(); ++i)
                h << (i ? ", " : "") << "sample_input_" << i;
            h << "};\n";
        }
        h << "\n}  // namespace " << ns << "\n";
        return h.str();
    }
};

}  // namespace codegen_detail

inline int cmd_codegen(const std::vector<std::string>& argv) {
    CLI::App app{
        "Writes the model as a compile-time network for firmware: one header with\n"
        "the weights as constexpr arrays, the fused layers, and the activation\n"
        "arrays of a memory plan that the compiler computes and checks.  It\n"
        "includes only litegraph's protobuf-free headers.",
        "litegraph codegen"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::string out_file, segments = "dtcm:128K,sram:436K", ns = "net";
    std::vector<std::string> shape_args;
    bool sample_input = false;
    app.add_option("-o", out_file, "the header to write")->type_name("FILE")->required();
    add_segments(app, segments, "dtcm:128K,sram:436K");
    app.add_option("--namespace", ns, "C++ namespace of the network (default net)")
        ->type_name("NAME");
    add_shape(app, shape_args);
    app.add_flag("--sample-input", sample_input,
                 "also write the deterministic input of `litegraph run`");
    if (!parse(app, argv)) return 0;
    if (!codegen_detail::is_identifier(ns))
        throw usage_error("--namespace '" + ns + "' is not a C++ identifier");
    std::vector<std::string> seg_names;
    auto segs = parse_segments(segments, seg_names);
    for (auto& s : seg_names)
        if (!codegen_detail::is_identifier(s))
            throw usage_error("segment name '" + s + "' is not a C++ identifier");
    const auto shapes = shapes_of(shape_args);
    // Prepared as a session prepares it, planned on the desktop into one
    // unbounded segment: whether the header's plan fits is the compiler's call.
    session_options opt;
    opt.segments = {segs[0]};
    opt.segments[0].capacity = planner::unbounded;
    session s(load_model(model), opt);
    runtime::program& prog = s.program();
    for (auto& [name, dims] : shapes) prog.input_index(name);
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        prog.set_input(i, deterministic_feed(v, shapes));
    }
    prog.prepare_plan();
    codegen_detail::generator gen{prog, ns, seg_names, segs, {}, {}, {}, 0, 0};
    const std::string source = model.source();
    auto text = gen.header(std::filesystem::path(source).filename().string(), sample_input);
    std::ofstream out(out_file, std::ios::binary);
    if (!out) throw io_error("cannot write " + out_file);
    out << text;
    if (!out) throw io_error("cannot write " + out_file);
    std::cout << "wrote " << out_file << ": " << gen.layer_count << " layers, " << gen.weight_bytes
              << " weight bytes, " << prog.buffers().size() << " activation buffers to plan over";
    for (std::size_t s = 0; s < segs.size(); ++s)
        std::cout << (s ? ", " : " ") << seg_names[s] << ":" << segs[s].capacity;
    std::cout << "\n";
    return 0;
}

}  // namespace litegraph::cli
