// Places in one call: the subgraph pass for every subgraph backend among the
// user's places, then the implementation pick for the rest, then a program whose
// kernels follow the picks.
//
//   backends::options o;
//   o.places = backends::parse_places("opencl,host");
//   auto report = backends::apply_places(g, o);       // after passes::run_passes(g)
//   auto prog = backends::make_program(std::move(g), o);
//   prog.run();
//   auto fb = backends::fallbacks(prog);               // subgraphs that ran on the host
//
// The OpenCL backend is compiled in when LITEGRAPH_WITH_OPENCL is defined
// (CMake: LITEGRAPH_OPENCL=ON and target litegraph::opencl); without it,
// asking for the opencl place is an unsupported_error that says so.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "litegraph/backends/implementations.hpp"
#include "litegraph/backends/place.hpp"
#include "litegraph/backends/subgraph.hpp"
#include "litegraph/backends/subgraph_op.hpp"
#include "litegraph/runtime/program.hpp"

#if defined(LITEGRAPH_WITH_OPENCL)
#include "litegraph/backends/opencl.hpp"
#endif

namespace litegraph::backends {

/// The subgraph backend of target `t`, or nullptr when `t` is a kernel-level
/// target (host, cortex_m_dsp).  Throws unsupported_error for a subgraph
/// target this build lacks.
inline std::shared_ptr<const subgraph_backend> subgraph_backend_for(target t) {
    if (t != target::opencl) return nullptr;
#if defined(LITEGRAPH_WITH_OPENCL)
    static const auto b = std::make_shared<const opencl::backend>();
    return b;
#else
    throw unsupported_error(
        "place opencl: this build has no OpenCL backend (configure with -DLITEGRAPH_OPENCL=ON "
        "and the OpenCL headers and ICD loader installed)");
#endif
}

struct options {
    std::vector<place> places{place{}};
    /// Subgraphs with fewer ops stay on the kernel places.
    int min_subgraph_size = 1;
    /// Implementations per place (default: default_implementations()).
    std::shared_ptr<const implementation_registry> implementations;
    /// Subgraph backends by target; empty entries are looked up with
    /// subgraph_backend_for (tests put their own here).
    std::map<target, std::shared_ptr<const subgraph_backend>> subgraph_backends;
};

struct partition_report {
    std::vector<subgraph_info> subgraphs;
    /// Ops (of the graph before partitioning) per place name.
    std::map<std::string, int> ops_per_place;
    /// Ops a subgraph backend's teller refused: {op label, backend, why}.
    struct refusal {
        std::string op, backend, reason;
    };
    std::vector<refusal> refused;
};

inline std::shared_ptr<const subgraph_backend> backend_of(const options& o, target t) {
    if (auto it = o.subgraph_backends.find(t); it != o.subgraph_backends.end() && it->second)
        return it->second;
    return subgraph_backend_for(t);
}

/// Partitions `g` (after the fusion passes) for the places of `o`.
inline partition_report apply_places(graph::graph& g, const options& o) {
    partition_report report;
    for (auto& p : o.places) {
        auto b = backend_of(o, p.where);
        if (!b) continue;
        std::vector<bool> marked(g.ops.size(), false);
        for (std::size_t i = 0; i < g.ops.size(); ++i) {
            if (g.ops[i].type == "subgraph") continue;
            auto why = b->refuses(g, g.ops[i]);
            marked[i] = why.empty();
            if (!marked[i])
                report.refused.push_back(
                    {g.op_label(static_cast<int>(i)), std::string(b->name()), why});
        }
        auto groups = detect_subgraphs(g, marked, o.min_subgraph_size);
        auto infos = replace_subgraphs(g, groups, std::string(b->name()));
        for (auto& i : infos) report.subgraphs.push_back(std::move(i));
    }
    auto reg = o.implementations
                   ? o.implementations
                   : std::make_shared<const implementation_registry>(default_implementations());
    pick_implementations(g, o.places, *reg);
    for (auto& s : report.subgraphs)
        report.ops_per_place[s.backend] += static_cast<int>(s.ops.size());
    for (auto& op : g.ops)
        if (op.type != "subgraph")
            ++report.ops_per_place[op.attrs.get<std::string>("litegraph_place", "none")];
    return report;
}

/// The kernel factory of a program over a partitioned graph.
inline runtime::instance_factory kernel_factory_for(const options& o) {
    auto reg = o.implementations
                   ? o.implementations
                   : std::make_shared<const implementation_registry>(default_implementations());
    return [reg, o](const graph::graph& g, int op) -> std::unique_ptr<op_instance> {
        const auto& node = g.ops[op];
        if (node.type == "subgraph") {
            auto name = node.attrs.require<std::string>("backend");
            auto index = node.attrs.require<std::int64_t>("sub_block");
            if (index < 0 || index >= static_cast<std::int64_t>(g.sub_blocks.size()))
                throw graph_error("subgraph op refers to sub-block #" + std::to_string(index) +
                                  " that does not exist");
            std::shared_ptr<const subgraph_backend> b;
            for (auto& p : o.places)
                if (auto c = backend_of(o, p.where); c && c->name() == name) b = c;
            if (!b) throw unsupported_error("no subgraph backend named '" + name + "'");
            return std::make_unique<subgraph_instance>(g.sub_blocks[index], b);
        }
        auto pick = node.attrs.get<std::string>("litegraph_pick", "");
        if (pick.empty()) return nullptr;
        auto* e = reg->find(node.type, pick);
        if (!e) throw unsupported_error("no kernel named '" + pick + "' for " + node.type);
        return e->make(node.attrs);
    };
}

/// A program over `g` (partitioned by apply_places) that builds picked kernels
/// and subgraph ops.
inline runtime::program make_program(graph::graph g, const options& o,
                                     std::vector<planner::segment> segments = {
                                         planner::segment{}}) {
    return runtime::program(std::move(g), std::move(segments), kernel_factory_for(o));
}

struct fallback {
    int op = -1;  // the subgraph op in the program's graph
    std::string backend;
    std::string reason;
};

/// The subgraph ops of `prog` that ran their original ops on the host (valid
/// after a run).
inline std::vector<fallback> fallbacks(const runtime::program& prog) {
    std::vector<fallback> v;
    for (auto& ins : prog.instructions())
        if (auto* s = dynamic_cast<const subgraph_instance*>(ins.k.get()); s && !s->on_device())
            v.push_back({ins.op, std::string(s->backend().name()), s->fallback_reason()});
    return v;
}

}  // namespace litegraph::backends
