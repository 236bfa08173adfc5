// The activations of a model folder as `litegraph plan` plans them, for the
// planner's benchmark and tests: the same code path as tools/litegraph/cmd_plan.hpp
// (fusion passes unless `fuse` is false; the runtime's shape inference when
// every op is supported, the declared shapes otherwise; inputs at their
// declared shapes, -1 as 1).
#pragma once

#include <filesystem>
#include <string>

#include "litegraph/cmd_plan.hpp"

namespace litegraph::cli {

inline plan_problem model_plan_problem(const std::filesystem::path& dir, bool fuse = true) {
    auto m = paddle::load(dir.string(), {.require_params = false});
    session_options opt;
    opt.fuse = fuse;
    prepare(m.graph, opt);
    return problem_for(m.graph, {}, {planner::segment{}});
}

/// Every model folder of ../shared/models and ../shared/models_topology_only
/// (sorted), as "sub/name" paths under `shared`.
inline std::vector<std::filesystem::path> shared_model_dirs(const std::filesystem::path& shared) {
    std::vector<std::filesystem::path> out;
    for (const char* sub : {"models", "models_topology_only"}) {
        auto root = shared / sub;
        if (!std::filesystem::is_directory(root)) continue;
        std::vector<std::filesystem::path> dirs;
        for (auto& e : std::filesystem::directory_iterator(root))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        out.insert(out.end(), dirs.begin(), dirs.end());
    }
    return out;
}

}  // namespace litegraph::cli
