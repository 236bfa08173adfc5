// The kernel way of bringing a device in (Paddle Lite's "low level" way):
// kernels registered for a place, and a pass that picks one per op.
//
// A implementation_registry holds entries {op type, place, name, accepts, make}.
// `host_implementations()` registers every op of the runtime's op table on the
// host place (the conv ops twice: the xsimd "fast" kernel first, then the
// plain-loop "reference" one); `default_implementations()` adds the Cortex-M DSP
// int8 kernels on cortex_m_dsp/i8/nchw (add_cortex_m_dsp_implementations).  A device
// adds its own entries the same way, e.g.:
//
//   auto reg = backends::host_implementations();
//   reg.add({"conv2d", {target::cortex_m_dsp, precision::i8, data_layout::nchw},
//            "conv2d.dsp_s8", accepts_1x1_or_3x3, make_dsp_conv});
//
// pick_implementations walks the ops and, for each, tries the places in the user's
// order (host last when not listed) and takes the first entry whose place
// matches the op's data precision and whose `accepts` says yes.  The choice
// is written on the op as attributes litegraph_place and litegraph_pick,
// which DOT, --json and the program (make_program) read.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "litegraph/backends/place.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/runtime/op_table.hpp"

namespace litegraph::backends {

struct implementation {
    std::string op_type;  // the Paddle (or fused) op type it runs
    place where;          // target, precision, layout
    std::string name;     // shown in DOT and --json, unique per op type
    /// Whether this kernel runs an op with these attributes (empty: every one).
    std::function<bool(const attr_map&)> accepts;
    /// Builds the kernel for an op with these attributes.
    std::function<std::unique_ptr<op_instance>(const attr_map&)> make;
};

class implementation_registry {
public:
    /// Adds an entry; earlier entries of the same place win (list the best first).
    void add(implementation e) { entries_.push_back(std::move(e)); }
    const std::vector<implementation>& entries() const noexcept { return entries_; }
    /// The entry for `op_type` named `name`, or nullptr.
    const implementation* find(std::string_view op_type, std::string_view name) const {
        for (auto& e : entries_)
            if (e.op_type == op_type && e.name == name) return &e;
        return nullptr;
    }

private:
    std::vector<implementation> entries_;
};

/// Every op of runtime::op_table on the host place.
inline implementation_registry host_implementations() {
    implementation_registry reg;
    std::set<std::string, std::less<>> seen;
    for (auto t : supported_op_types<runtime::op_table>()) {
        std::string type(t);
        if (!seen.insert(type).second) continue;
        auto make_with = [type](std::string k) {
            return [type, k](const attr_map& a) {
                if (k.empty()) return runtime::make_table_instance(type, a);
                attr_map copy = a;
                copy.set("litegraph_kernel", k);
                return runtime::make_table_instance(type, copy);
            };
        };
        if (op_trait_of(runtime::op_table{}, type, false,
                        []<class Op>() { return op_selectable_loops<Op>(); })) {
            // The fast loops, or the conv's "gemm" form of them (no
            // Winograd, ops/conv2d.hpp) where the op is pinned to it.
            auto fast_with = [type](const attr_map& a) {
                attr_map copy = a;
                if (a.get<std::string>("litegraph_kernel", "fast") != "gemm")
                    copy.set("litegraph_kernel", std::string("fast"));
                return runtime::make_table_instance(type, copy);
            };
            implementation fast{type,
                                {target::host, precision::f32, data_layout::nchw},
                                type + ".fast",
                                nullptr,
                                fast_with};
            // An op the user pinned to the reference loops keeps them.
            fast.accepts = [](const attr_map& a) {
                return a.get<std::string>("litegraph_kernel", "fast") != "reference";
            };
            reg.add(std::move(fast));
            reg.add({type,
                     {target::host, precision::f32, data_layout::nchw},
                     type + ".reference",
                     nullptr,
                     make_with("reference")});
        } else {
            reg.add({type,
                     {target::host, precision::any, data_layout::any},
                     type,
                     nullptr,
                     make_with("")});
        }
    }
    return reg;
}

/// The Cortex-M DSP int8 kernels (kernels/cortex_m/) on the place
/// cortex_m_dsp/i8/nchw, listed for the pick and its reports:
///  - fused_conv2d_int8 with groups 1: "fused_conv2d_int8.dsp" (the int8
///    patches path: 4 filters x 2 pixels per SMLAD step; 1x1 and 3x3 in the
///    bench);
///  - fused_conv2d_int8 with groups > 1: "fused_conv2d_int8.dsp_depthwise"
///    (the two-pixel depthwise path; a grouped conv that is not depthwise
///    runs the reference loops inside the same kernel);
///  - mul_int8: "mul_int8.dsp_fc".
/// Each builds the runtime's table kernel, which calls conv2d_int8_best /
/// fc_int8_best: the DSP kernels in a Cortex-M4/M7 build, the reference int8
/// loops elsewhere, with the same accumulators (tests/firmware/dsp_kernels.sh
/// checks them bit-exact under QEMU).  So off the target the pick reports
/// which kernels a firmware build of the graph runs, and the outputs do not
/// change.
inline void add_cortex_m_dsp_implementations(implementation_registry& reg) {
    const place dsp{target::cortex_m_dsp, precision::i8, data_layout::nchw};
    auto make = [](std::string type) {
        return [type](const attr_map& a) { return runtime::make_table_instance(type, a); };
    };
    auto groups = [](const attr_map& a) { return a.get<std::int32_t>("groups", 1); };
    const std::string conv(first_op<fusion::fused_int8_ops>::type::paddle_types[0]);
    const std::string fc(ops::mul_int8::paddle_types[0]);
    reg.add({conv, dsp, conv + ".dsp", [groups](const attr_map& a) { return groups(a) == 1; },
             make(conv)});
    reg.add({conv, dsp, conv + ".dsp_depthwise",
             [groups](const attr_map& a) { return groups(a) > 1; }, make(conv)});
    reg.add({fc, dsp, fc + ".dsp_fc", nullptr, make(fc)});
}

/// The registry apply_places uses by default: host_implementations() and the
/// Cortex-M DSP int8 entries.
inline implementation_registry default_implementations() {
    auto reg = host_implementations();
    add_cortex_m_dsp_implementations(reg);
    return reg;
}

/// The precision of the data op `op` computes: that of its first input that
/// is not a parameter (else its first input; any when it has none).
inline precision op_precision(const graph::graph& g, const graph::op_node& op) {
    int first = -1;
    for (auto& s : op.inputs)
        for (int v : s.vars) {
            if (!g.vars[v].persistable) return precision_of(g.vars[v].type);
            if (first < 0) first = v;
        }
    return first >= 0 ? precision_of(g.vars[first].type) : precision::any;
}

/// Whether a kernel for place `k` may run under the user's place `user`.
inline bool place_matches(const place& k, const place& user, precision data) {
    if (k.where != user.where) return false;
    if (!accepts(k.prec, data)) return false;
    if (user.prec != precision::any && k.prec != precision::any && k.prec != user.prec)
        return false;
    return user.layout == data_layout::any || k.layout == data_layout::any ||
           k.layout == user.layout;
}

/// Picks a kernel for every op (subgraph ops keep their backend) and writes it
/// on the op (litegraph_place, litegraph_pick).  Returns how many ops got a
/// kernel; an op no place can run keeps no pick (the program then names it).
inline int pick_implementations(graph::graph& g, std::vector<place> places,
                                const implementation_registry& reg) {
    bool has_host = false;
    for (auto& p : places) has_host = has_host || p.where == target::host;
    if (!has_host) places.push_back(place{});
    int picked = 0;
    for (auto& op : g.ops) {
        if (op.type == "subgraph") {
            op.attrs.set("litegraph_place", op.attrs.get<std::string>("backend", "?"));
            op.attrs.set("litegraph_pick", std::string("subgraph"));
            ++picked;
            continue;
        }
        const auto data = op_precision(g, op);
        const implementation* best = nullptr;
        for (auto& p : places) {
            for (auto& e : reg.entries())
                if (e.op_type == op.type && place_matches(e.where, p, data) &&
                    (!e.accepts || e.accepts(op.attrs))) {
                    best = &e;
                    break;
                }
            if (best) break;
        }
        if (!best) continue;
        op.attrs.set("litegraph_place", to_string(best->where));
        op.attrs.set("litegraph_pick", best->name);
        ++picked;
    }
    return picked;
}

}  // namespace litegraph::backends
