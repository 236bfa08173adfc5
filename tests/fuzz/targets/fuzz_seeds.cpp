// Writes the seed corpora of the fuzz targets into OUT/{topology,params,model}:
// every model under SHARED/models (topology, and topology + parameters when
// small), generated SqueezeNets, and valid inputs for the params target.
// Usage: fuzz_seeds OUT [SHARED]
#include <filesystem>
#include <fstream>
#include <iostream>

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

/// Model-target seeds: the topology alone, and with its parameters when the
/// whole input stays under `max_with_params` bytes (large seeds slow libFuzzer).
void model_seeds(const fs::path& out, const std::string& name, const std::string& topology,
                 const graph::graph* g) {
    constexpr std::size_t max_with_params = std::size_t{1} << 20;
    write(out / "topology" / name, topology);
    write(out / "model" / (name + "-topology"), fuzz::model_input(topology, nullptr));
    if (!g) return;
    bool any = false;
    for (auto& v : g->vars) any = any || v.persistable;
    if (!any) return;
    auto params = paddle::serialize_params(*g);
    if (topology.size() + params.size() <= max_with_params)
        write(out / "model" / (name + "-params"), fuzz::model_input(topology, &params));
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
    // Generated models: SqueezeNet 1.0 and 1.1 at a small input size, topology only
    // (their parameters are megabytes).
    for (std::string v : {"1_0", "1_1"}) {
        generate::squeezenet_options o;
        o.version = v;
        o.input_size = 32;
        o.classes = 10;
        auto g = generate::squeezenet(o);
        model_seeds(out, "squeezenet" + v, paddle::serialize_program(g), nullptr);
        n += 2;
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
                }
                model_seeds(out, dir.filename().string(), topology, m ? &m->graph : nullptr);
                n += 2;
            } catch (const error& e) {
                std::cerr << "fuzz_seeds: skipped " << dir.string() << ": " << e.what() << "\n";
            }
        }
    }
    std::cout << "fuzz_seeds: wrote seeds for " << n << " inputs to " << out.string() << "\n";
    return 0;
}
