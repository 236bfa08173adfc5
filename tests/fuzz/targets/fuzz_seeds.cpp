// Writes the seed corpora of the fuzz targets into OUT/{topology,params,model}:
// every model under SHARED/models (topology, and topology + parameters when
// small), generated SqueezeNets, and valid inputs for the params target.
// A model whose topology is over `max_seed_bytes` is cut into windows of
// consecutive ops, each a valid model of its own (values from before the window
// are its feeds); a window is kept when it brings an op type no earlier seed
// has.  Seeds stay small so the fuzzers run fast and never see a truncated seed.
// Usage: fuzz_seeds OUT [SHARED]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "fuzz/harness.hpp"
#include "tools/generate/squeezenet.hpp"

namespace fs = std::filesystem;
using namespace litegraph;

namespace {

void write(const fs::path& file, const std::string& bytes) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string u32(std::uint32_t v) {
    return std::string(reinterpret_cast<const char*>(&v), 4);
}

/// Seeds are at most this large (.ci/fuzz.sh runs with -max_len above it):
/// libFuzzer truncates a longer seed, which then only exercises the errors of a
/// cut protobuf message.
constexpr std::size_t max_seed_bytes = 16 << 10;
/// The op types the seeds written so far hold.
std::set<std::string> seen_ops;

/// Model-target seeds: the topology alone, and with its parameters when the
/// whole input stays under `max_seed_bytes` (large seeds slow libFuzzer).
void model_seeds(const fs::path& out, const std::string& name, const std::string& topology,
                 const graph::graph* g) {
    constexpr std::size_t max_with_params = max_seed_bytes;
    write(out / "topology" / name, topology);
    write(out / "model" / (name + "-topology"), fuzz::model_input(topology, nullptr));
    if (!g) return;
    bool any = false;
    for (auto& v : g->vars) any = any || v.persistable;
    if (!any) return;
    for (auto& v : g->vars)
        if (v.persistable && !v.value) return;
    auto params = paddle::serialize_params(*g);
    if (topology.size() + params.size() <= max_with_params)
        write(out / "model" / (name + "-params"), fuzz::model_input(topology, &params));
}

/// The model made of the ops `order[first, last)` of `g`: their variables
/// (parameters with their values); a value the window reads but does not make
/// is a feed, a value it makes and does not read is a fetch.
graph::graph window(const graph::graph& g, const std::vector<int>& order, std::size_t first,
                    std::size_t last) {
    graph::graph w;
    std::map<int, int> ids;  // g's var -> w's var
    std::set<int> made;
    for (std::size_t k = first; k < last; ++k)
        for (auto& sl : g.ops[static_cast<std::size_t>(order[k])].outputs)
            made.insert(sl.vars.begin(), sl.vars.end());
    auto var = [&](int v) {
        auto [it, added] = ids.try_emplace(v, -1);
        if (!added) return it->second;
        graph::var_node n = g.vars[static_cast<std::size_t>(v)];
        n.producer = -1;
        n.consumers.clear();
        it->second = w.add_var(std::move(n));
        if (!made.count(v) && !g.vars[static_cast<std::size_t>(v)].persistable)
            w.feeds.push_back({it->second, static_cast<int>(w.feeds.size())});
        return it->second;
    };
    for (std::size_t k = first; k < last; ++k) {
        graph::op_node op = g.ops[static_cast<std::size_t>(order[k])];
        for (auto& sl : op.inputs)
            for (auto& v : sl.vars) v = var(v);
        for (auto& sl : op.outputs)
            for (auto& v : sl.vars) v = var(v);
        w.add_op(std::move(op));
    }
    for (int v = 0; v < static_cast<int>(w.vars.size()); ++v)
        if (w.vars[static_cast<std::size_t>(v)].producer >= 0 &&
            w.vars[static_cast<std::size_t>(v)].consumers.empty())
            w.fetches.push_back({v, static_cast<int>(w.fetches.size())});
    return w;
}

/// Seeds of a model: whole when its topology is small, else windows of
/// consecutive ops, each under `max_seed_bytes`: the first, and those that
/// bring a new op type.
/// Returns the number of seeds.
int model_or_window_seeds(const fs::path& out, const std::string& name, const std::string& topology,
                          const graph::graph* g) {
    if (topology.size() <= max_seed_bytes || !g) {
        if (g)
            for (auto& op : g->ops) seen_ops.insert(op.type);
        model_seeds(out, name, topology, g);
        return 1;
    }
    const auto order = g->topo_order();
    int n = 0;
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first + 1;
        std::string bytes = paddle::serialize_program(window(*g, order, first, last));
        while (last < order.size()) {
            auto more = paddle::serialize_program(window(*g, order, first, last + 1));
            if (more.size() > max_seed_bytes) break;
            bytes = std::move(more);
            ++last;
        }
        bool fresh = first == 0;  // each model's first window: its feeds
        for (std::size_t k = first; k < last; ++k)
            fresh =
                seen_ops.insert(g->ops[static_cast<std::size_t>(order[k])].type).second || fresh;
        if (fresh) {
            auto w = window(*g, order, first, last);
            model_seeds(out, name + "-ops" + std::to_string(first) + "-" + std::to_string(last),
                        bytes, &w);
            ++n;
        }
        first = last;
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: fuzz_seeds OUT [SHARED]\n";
        return 2;
    }
    const fs::path out = argv[1];
    int n = 0;
    // The params target: valid combined and separate inputs for its fixed topology.
    {
        std::map<std::string, tensor> values;
        values.emplace("bias", tensor(dtype::f32, {3}));
        values.emplace("emb", tensor(dtype::i64, {5, 2}));
        values.emplace("half", tensor(dtype::f16, {2}));
        values.emplace("q", tensor(dtype::i8, {2, 2, 2}));
        values.emplace("w", tensor(dtype::f32, {4, 3}));
        std::string combined(1, '\0'), separate(1, '\x01');
        for (auto& name : fuzz::params_names()) {
            std::string rec;
            paddle::append_record(rec, values.at(name));
            combined += rec;
            separate += u32(static_cast<std::uint32_t>(rec.size())) + rec;
        }
        write(out / "params" / "combined", combined);
        write(out / "params" / "separate", separate);
        n += 2;
    }
    // Generated models: SqueezeNet 1.0 and 1.1 at a small input size (parameters
    // only where a window's are small).
    for (std::string v : {"1_0", "1_1"}) {
        generate::squeezenet_options o;
        o.version = v;
        o.input_size = 32;
        o.classes = 10;
        auto g = generate::squeezenet(o);
        n += model_or_window_seeds(out, "squeezenet" + v, paddle::serialize_program(g), &g);
    }
    // The shared models, as stored (and with their parameters as one combined file).
    if (argc > 2) {
        const fs::path models = fs::path(argv[2]) / "models";
        std::error_code ec;
        std::vector<fs::path> dirs;
        for (auto& e : fs::directory_iterator(models, ec))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        for (auto& dir : dirs) {
            try {
                auto files = paddle::locate(dir);
                auto topology = paddle::read_file(files.topology);
                std::optional<paddle::model> m;
                try {
                    m = paddle::load(files);
                } catch (const error& e) {
                    std::cerr << "fuzz_seeds: " << dir.filename().string()
                              << " as topology only: " << e.what() << "\n";
                    paddle::load_options o;
                    o.require_params = false;
                    m = paddle::load(files, o);
                }
                n += model_or_window_seeds(out, dir.filename().string(), topology, &m->graph);
            } catch (const error& e) {
                std::cerr << "fuzz_seeds: skipped " << dir.string() << ": " << e.what() << "\n";
            }
        }
    }
    std::cout << "fuzz_seeds: wrote seeds for " << n << " inputs to " << out.string() << "\n";
    return 0;
}
