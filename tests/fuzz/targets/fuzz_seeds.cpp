// Writes the seed corpora of the fuzz targets into OUT/{topology,params,model,pir}
// and their dictionaries OUT/ops.dict (op types) and OUT/pir.dict (PIR op names):
// every model under SHARED/models (topology, and topology + parameters when
// small), generated SqueezeNets, and valid inputs for the params target; for
// the pir target every PIR program of SHARED/models and
// SHARED/models_topology_only_pir, cut the same way (windows of consecutive
// top-level ops; values from before the window are 1.data ops).
// A model whose topology is over `max_seed_bytes` is cut into windows of
// consecutive ops, each a valid model of its own (values from before the window
// are its feeds); a window is kept when it brings an op type no earlier seed
// has.  Seeds stay small so the fuzzers run fast and never see a truncated seed.
// Usage: fuzz_seeds OUT [SHARED]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "fuzz/harness.hpp"
#include "litegraph/generate/squeezenet.hpp"
#include "pir_json.hpp"

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

// ---- PIR programs -------------------------------------------------------------------

using json = nlohmann::json;

/// The op names the PIR seeds written so far hold.
std::set<std::string> seen_pir_ops;

/// `ops` without the attributes no reader looks at (struct_name: long strings).
json lean(json op) {
    if (op.is_object() && op.contains("A") && op["A"].is_array()) {
        json kept = json::array();
        for (auto& a : op["A"])
            if (!(a.is_object() && a.value("N", std::string()) == "struct_name")) kept.push_back(a);
        op["A"] = std::move(kept);
    }
    return op;
}

/// The ids an op reads, its nested regions' reads of outer values included.
void reads_of(const json& op, std::vector<std::int64_t>& out) {
    if (op.contains("I"))
        for (auto& i : op["I"])
            if (i.is_object() && i.contains("%") && i["%"].is_number_integer())
                out.push_back(i["%"].get<std::int64_t>());
    if (op.contains("regions"))
        for (auto& r : op["regions"])
            for (auto& b : r["blocks"])
                for (auto& o : b["ops"]) reads_of(o, out);
}

/// Window [first, last) of the non-parameter top-level ops as a program: the
/// parameters it reads, a 1.data for every other value from before it (list
/// values: the ops that made them, pulled in), a 1.fetch of every value it
/// makes and does not read; `params` gets the records of the parameters used.
json pir_window(const json& ops, const std::vector<std::size_t>& body, std::size_t first,
                std::size_t last, const std::map<std::string, std::string>& records,
                std::string* params) {
    std::map<std::int64_t, std::size_t> maker;  // id -> op index
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const auto& o = ops[i];
        if (o["#"] == "p")
            maker[o["O"]["%"].get<std::int64_t>()] = i;
        else
            for (auto& x : o["O"]) maker[x["%"].get<std::int64_t>()] = i;
    }
    std::set<std::size_t> chosen(body.begin() + static_cast<std::ptrdiff_t>(first),
                                 body.begin() + static_cast<std::ptrdiff_t>(last));
    // Lists and constants the window reads come along with their makers.
    for (bool grew = true; grew;) {
        grew = false;
        for (auto i : std::set<std::size_t>(chosen)) {
            std::vector<std::int64_t> in;
            reads_of(ops[i], in);
            for (auto id : in) {
                auto it = maker.find(id);
                if (it == maker.end() || chosen.count(it->second)) continue;
                const auto& m = ops[it->second];
                const auto name = m["#"].get<std::string>();
                if (name == "0.combine" || name == "1.full" || name == "1.full_int_array") {
                    chosen.insert(it->second);
                    grew = true;
                }
            }
        }
    }
    std::set<std::int64_t> made, read;
    for (auto i : chosen) {
        const auto& o = ops[i];
        if (o["#"] == "p") continue;
        for (auto& x : o["O"]) made.insert(x["%"].get<std::int64_t>());
        std::vector<std::int64_t> in;
        reads_of(o, in);
        read.insert(in.begin(), in.end());
    }
    json out = json::array();
    std::set<std::string> param_names;
    int feeds = 0;
    for (auto id : read) {
        if (id <= 0 || made.count(id)) continue;
        auto it = maker.find(id);
        if (it == maker.end()) continue;
        const auto& m = ops[it->second];
        if (m["#"] == "p") {
            out.push_back(m);
            param_names.insert(m["A"][3].get<std::string>());
            continue;
        }
        json tt;
        for (auto& x : m["O"])
            if (x["%"] == id) tt = x["TT"];
        if (!tt.is_object() || tt.value("#", std::string()) != "0.t_dtensor") continue;
        auto dims = tt["D"][1];
        const std::string dt = tt["D"][0]["#"].get<std::string>().substr(4);
        const std::map<std::string, std::string> names{{"f32", "float32"}, {"f64", "float64"},
                                                       {"i64", "int64"},   {"i32", "int32"},
                                                       {"bool", "bool"},   {"ui8", "uint8"}};
        auto dn = names.find(dt);
        out.push_back(
            {{"#", "1.data"},
             {"A", json::array({{{"N", "name"},
                                 {"AT", {{"#", "0.a_str"}, {"D", "in" + std::to_string(feeds++)}}}},
                                {{"N", "shape"}, {"AT", {{"#", "1.a_intarray"}, {"D", dims}}}},
                                {{"N", "dtype"},
                                 {"AT",
                                  {{"#", "1.a_dtype"},
                                   {"D", dn == names.end() ? "float32" : dn->second}}}}})},
             {"I", json::array()},
             {"O", json::array({{{"%", id}, {"TT", tt}}})}});
    }
    for (auto i : chosen) out.push_back(lean(ops[i]));
    int col = 0;
    std::int64_t next = 1 << 30;
    for (auto i : chosen) {
        if (ops[i]["#"] == "p" || ops[i]["#"] == "1.fetch") continue;
        for (auto& x : ops[i]["O"]) {
            const auto id = x["%"].get<std::int64_t>();
            if (read.count(id) || !x["TT"].is_object() ||
                x["TT"].value("#", std::string()) != "0.t_dtensor")
                continue;
            out.push_back(
                {{"#", "1.fetch"},
                 {"A",
                  json::array({{{"N", "name"},
                                {"AT", {{"#", "0.a_str"}, {"D", "out" + std::to_string(col)}}}},
                               {{"N", "col"}, {"AT", {{"#", "0.a_i32"}, {"D", col}}}}})},
                 {"I", json::array({{{"%", id}}})},
                 {"O", json::array({{{"%", next++}, {"TT", x["TT"]}}})}});
            ++col;
        }
    }
    if (params) {
        params->clear();
        for (auto& n : param_names) {  // std::set: byte-sorted
            auto it = records.find(n);
            if (it == records.end()) {
                params->clear();
                break;
            }
            *params += it->second;
        }
    }
    return test::pir_json::program(std::move(out));
}

/// pir-target seeds of one program (whole when small, else windows that bring
/// an op name no earlier seed has); `records`: its parameter records by name.
int pir_seeds(const fs::path& out, const std::string& name, const std::string& text,
              const std::map<std::string, std::string>& records) {
    auto put = [&](const std::string& seed, const std::string& json_text,
                   const std::string* params) {
        std::string s(1, params && !params->empty() ? '\x01' : '\x00');
        s += u32(static_cast<std::uint32_t>(json_text.size()));
        s += json_text;
        if (params && !params->empty()) s += *params;
        write(out / "pir" / seed, s);
    };
    json root = json::parse(text);
    const auto& ops = root["program"]["regions"][0]["blocks"][0]["ops"];
    std::vector<std::size_t> body;
    bool control_flow = false;
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i]["#"] != "p") {
            body.push_back(i);
            control_flow = control_flow || ops[i].contains("regions");
        }
    const auto whole = root.dump();
    if (whole.size() <= max_seed_bytes) {
        for (auto i : body) seen_pir_ops.insert(ops[i]["#"].get<std::string>());
        put(name, whole, nullptr);
        return 1;
    }
    (void)control_flow;
    int n = 0;
    for (std::size_t first = 0; first < body.size();) {
        std::size_t last = first + 1;
        std::string params;
        std::string bytes = pir_window(ops, body, first, last, records, nullptr).dump();
        while (last < body.size()) {
            auto more = pir_window(ops, body, first, last + 1, records, nullptr).dump();
            if (more.size() > max_seed_bytes) break;
            bytes = std::move(more);
            ++last;
        }
        bool fresh = first == 0;
        for (std::size_t k = first; k < last; ++k)
            fresh = seen_pir_ops.insert(ops[body[k]]["#"].get<std::string>()).second || fresh;
        // A single op can be larger than a seed may be (a while loop's body).
        if (fresh && bytes.size() <= max_seed_bytes) {
            const auto seed = name + "-ops" + std::to_string(first) + "-" + std::to_string(last);
            put(seed, bytes, nullptr);
            pir_window(ops, body, first, last, records, &params);
            if (!params.empty() && bytes.size() + params.size() <= max_seed_bytes)
                put(seed + "-params", bytes, &params);
            ++n;
        }
        first = last;
    }
    // With parameters: the first op of each name whose window of one op and its
    // parameters fit a seed (a window of many ops holds too many weights).
    if (!records.empty()) {
        std::set<std::string> done;
        for (std::size_t k = 0; k < body.size(); ++k) {
            const auto op_name = ops[body[k]]["#"].get<std::string>();
            if (done.count(op_name)) continue;
            std::string params;
            const auto bytes = pir_window(ops, body, k, k + 1, records, &params).dump();
            if (params.empty() || bytes.size() + params.size() > max_seed_bytes) continue;
            done.insert(op_name);
            put(name + "-op" + std::to_string(k) + "-params", bytes, &params);
            ++n;
        }
    }
    return n;
}

/// The parameter records of a PIR program's combined file, by name.
std::map<std::string, std::string> pir_records(const std::string& text, const fs::path& file) {
    std::map<std::string, std::string> r;
    if (file.empty()) return r;
    const auto bytes = paddle::read_file(file);
    std::vector<std::string> names;
    json root = json::parse(text);
    for (auto& o : root["program"]["regions"][0]["blocks"][0]["ops"])
        if (o["#"] == "p") names.push_back(o["A"][3].get<std::string>());
    std::sort(names.begin(), names.end());
    paddle::detail::record_reader reader(bytes, file.string());
    for (auto& n : names) {
        const auto at = reader.offset();
        reader.read(n, [](const paddle::record_info&) {});
        r[n] = bytes.substr(at, reader.offset() - at);
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: fuzz_seeds OUT [SHARED]\n";
        return 2;
    }
    const fs::path out = argv[1];
    int n = 0;
    // Dictionaries (libFuzzer -dict): every op type the runtime has and every
    // PIR op name the loader translates, so that a mutation can turn an op into
    // any other, including ops no seed holds.
    {
        std::set<std::string> types;
        for (auto t : supported_op_types<runtime::op_table>()) types.emplace(t);
        std::string ops, pir;
        for (auto& t : types) ops += "\"" + t + "\"\n";
        for (auto& [name, type] : paddle::pir::op_table()) pir += "\"" + std::string(name) + "\"\n";
        write(out / "ops.dict", ops);
        write(out / "pir.dict", pir);
    }
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
                if (paddle::detail::is_pir_file(files.topology)) {
                    n += pir_seeds(out, dir.filename().string(), topology,
                                   pir_records(topology, files.params));
                    continue;
                }
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
            } catch (const std::exception& e) {
                std::cerr << "fuzz_seeds: skipped " << dir.string() << ": " << e.what() << "\n";
            }
        }
    }
    // PIR programs without parameters (topology only).
    if (argc > 2) {
        std::error_code ec;
        std::vector<fs::path> dirs;
        for (auto& e : fs::directory_iterator(fs::path(argv[2]) / "models_topology_only_pir", ec))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        for (auto& dir : dirs) {
            try {
                auto files = paddle::locate(dir);
                n += pir_seeds(out, "topo-" + dir.filename().string(),
                               paddle::read_file(files.topology), {});
            } catch (const std::exception& e) {
                std::cerr << "fuzz_seeds: skipped " << dir.string() << ": " << e.what() << "\n";
            }
        }
    }
    std::cout << "fuzz_seeds: wrote seeds for " << n << " inputs to " << out.string() << "\n";
    return 0;
}
