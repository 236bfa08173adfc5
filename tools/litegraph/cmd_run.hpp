// litegraph run: runs a model on given or deterministic inputs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "images.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "options.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

/// The input litegraph feeds when none is given: element i of a float input
/// is sin(0.37 i) cos(0.011 i) (the formula of the classifier's reference
/// inputs); integer inputs get i mod 7 (valid ids and small shapes).
inline tensor deterministic_input(dtype type, const shape_t& shape) {
    tensor t(type, shape);
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(type, [&]<class T>(T) {
        auto* p = reinterpret_cast<T*>(t.data());
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_floating_point_v<T>)
                p[i] = static_cast<T>(std::sin(0.37 * double(i)) * std::cos(0.011 * double(i)));
            else
                p[i] = static_cast<T>(i % 7);
        }
    });
    return t;
}

/// The shape litegraph feeds input `v` when no data is given: `shapes[v.name]`
/// (which must have the input's rank), else the declared shape with -1 as 1.
inline shape_t input_shape(const graph::var_node& v, const std::map<std::string, shape_t>& shapes) {
    shape_t shape = v.shape;
    if (auto it = shapes.find(v.name); it != shapes.end()) {
        if (!shape.empty() && it->second.size() != shape.size())
            throw usage_error("--shape " + v.name + ": the input has rank " +
                              std::to_string(shape.size()) + ", got " +
                              std::to_string(it->second.size()) + " dims");
        shape = it->second;
    }
    for (auto& d : shape)
        if (d < 0) d = 1;
    return shape;
}

/// deterministic_input for feed `v` (shape from input_shape); a LoD feed gets
/// one sequence of all its rows.
inline tensor deterministic_feed(const graph::var_node& v,
                                 const std::map<std::string, shape_t>& shapes) {
    auto t = deterministic_input(v.type, input_shape(v, shapes));
    if (v.lod_level > 0 && !t.shape().empty()) t.set_lod({{0, t.shape()[0]}});
    return t;
}

inline nlohmann::json tensor_summary(const tensor_ref& t, std::size_t max_values = 10) {
    nlohmann::json values = nlohmann::json::array();
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(t.type, [&]<class T>(T) {
        auto* p = reinterpret_cast<const T*>(t.data);
        for (std::size_t i = 0; i < std::min(n, max_values); ++i) values.push_back(p[i]);
    });
    return values;
}

/// `plan --json` / `run --json` "patches": the stage, the grid and the bytes
/// (peak: the patched plan's, or its LOAD when it does not fit).
inline nlohmann::json patches_json(const runtime::patch_choice& c, std::size_t peak) {
    return {{"stage", {{"first", c.first_op}, {"last", c.last_op}, {"split_tensor", c.split_name}}},
            {"grid", std::to_string(c.rows) + "x" + std::to_string(c.cols)},
            {"rows", c.rows},
            {"cols", c.cols},
            {"peak_bytes", peak},
            {"untiled_load_bytes", c.untiled_load_bytes},
            {"peak_over_untiled_load",
             c.untiled_load_bytes ? double(peak) / double(c.untiled_load_bytes) : 1.0},
            {"scratch_bytes", c.scratch_bytes},
            {"mac_overhead", c.mac_overhead},
            {"stage_mac_overhead", c.stage_mac_overhead},
            {"tail", c.tail ? nlohmann::json{{"first", c.tail_first_op},
                                             {"last", c.tail_last_op},
                                             {"rows", c.tail_rows}}
                            : nlohmann::json(nullptr)}};
}

inline void print_patches(const nlohmann::json& p) {
    std::cout << "patches:      " << p["grid"].get<std::string>() << " over "
              << p["stage"]["first"].get<std::string>() << " .. "
              << p["stage"]["last"].get<std::string>() << ": peak "
              << p["peak_bytes"].get<std::size_t>() << " bytes, untiled LOAD "
              << p["untiled_load_bytes"].get<std::size_t>() << " ("
              << p["peak_over_untiled_load"].get<double>() << "x), MACs x"
              << p["mac_overhead"].get<double>() << "\n";
    if (!p["tail"].is_null())
        std::cout << "              and " << p["tail"]["first"].get<std::string>() << " .. "
                  << p["tail"]["last"].get<std::string>() << " in " << p["tail"]["rows"].get<int>()
                  << " row bands\n";
}

/// `--input-dtype int8`: each input's scale and zero point.
inline nlohmann::json inputs_json(const std::vector<passes::input_quantization>& q) {
    nlohmann::json a = nlohmann::json::array();
    for (auto& i : q)
        a.push_back(
            {{"name", i.name}, {"dtype", "int8"}, {"step", i.scale}, {"zero_point", i.zero_point}});
    return a;
}

inline void print_inputs(const nlohmann::json& a) {
    for (auto& i : a)
        std::cout << "input:        " << i["name"].get<std::string>()
                  << " int8, real = " << i["step"].get<float>() << " * (q - "
                  << i["zero_point"].get<int>() << ")\n";
}

inline bool is_integer_type(dtype t) {
    return t == dtype::i32 || t == dtype::i64 || t == dtype::i16 || t == dtype::i8 ||
           t == dtype::u8 || t == dtype::boolean;
}

/// How many executed instructions run int8 kernels, fp32 kernels, or convert
/// float to int8 (quantize_int8), and which op types ran in fp32: the report
/// of the int8 fallback.
inline nlohmann::json kernel_summary(const runtime::program& prog) {
    int int8 = 0, fp32 = 0, conversions = 0;
    nlohmann::json fp32_ops = nlohmann::json::object();
    for (int i : prog.execution_order()) {
        const auto& ins = prog.instructions()[static_cast<std::size_t>(i)];
        if (ins.elided) continue;
        const std::string name(ins.k->name());
        bool on_int8 = name.size() > 5 && name.compare(name.size() - 5, 5, "_int8") == 0;
        for (auto& s : ins.io.inputs)
            for (auto* a : s.args) on_int8 = on_int8 || a->type == dtype::i8;
        if (op_declares<ops::quantize_int8>(name) || op_declares<ops::dequantize_int8>(name)) {
            ++conversions;
        } else if (on_int8) {
            ++int8;
        } else {
            ++fp32;
            const auto& type = prog.graph().ops[static_cast<std::size_t>(ins.op)].type;
            fp32_ops[type] = fp32_ops.value(type, 0) + 1;
        }
    }
    return {{"int8", int8}, {"fp32", fp32}, {"conversions", conversions}, {"fp32_ops", fp32_ops}};
}

/// Bytes of memory the system has available for a new allocation
/// (MemAvailable of /proc/meminfo), or 0 when unknown.
inline std::uint64_t memory_available() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (f >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

/// Refuses (before any input or the arena is allocated) a run whose planned
/// arena is over `cap` (--max-arena-bytes, else program_limits::max_arena_bytes)
/// or whose arena and inputs together are over the memory available.
inline void check_memory(runtime::program& prog, std::uint64_t inputs_bytes, bool cap_given) {
    const auto arena = prog.planned_arena_bytes();
    const auto cap = prog.limits().max_arena_bytes;
    if (arena > cap)
        throw shape_error("the plan needs an arena of " + std::to_string(arena) +
                          " bytes, over the cap of " + std::to_string(cap) + " bytes (" +
                          (cap_given ? "--max-arena-bytes"
                                     : "the default program_limits::max_arena_bytes; raise it "
                                       "with --max-arena-bytes") +
                          ")");
    const auto available = memory_available();
    if (available && (arena > available || inputs_bytes > available - arena))
        throw shape_error("the plan needs " + std::to_string(arena) + " bytes of arena and " +
                          std::to_string(inputs_bytes) +
                          " bytes of inputs, over the memory "
                          "available (" +
                          std::to_string(available) + " bytes, MemAvailable of /proc/meminfo)");
}

inline int cmd_run(const std::vector<std::string>& argv) {
    CLI::App app{
        "Runs the model.  Inputs not given by --input get a deterministic tensor of the\n"
        "feed's shape (-1 dims become 1, or as --shape says): float element i is\n"
        "sin(0.37 i) cos(0.011 i), integer element i is i mod 7; a LoD input without\n"
        "--lod is one sequence of all its rows.  The activations are planned before\n"
        "the large inputs are allocated: a plan over the arena cap or over the memory\n"
        "available (MemAvailable) is an error (exit 1) saying how many bytes it needs.\n"
        "An input with a zero dim (an empty batch) is refused (exit 2).",
        "litegraph run"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::vector<std::string> inputs, shape_args, lod_args, image_files;
    repeatable(app.add_option("--input", inputs, "feed NAME from a .npy file (repeatable)"))
        ->type_name("NAME=FILE.npy")
        ->check(parsed_by([](const std::string& s) {
            auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
                throw usage_error("expects NAME=FILE.npy, got '" + s + "'");
        }));
    add_shape(app, shape_args);
    repeatable(app.add_option("--lod", lod_args,
                              "LoD of input NAME: sequence start offsets 0,L0,L0+L1,...\n"
                              "ending at its row count; repeat for NAME to add a\n"
                              "deeper level (the first given is the outermost)"))
        ->type_name("NAME=OFFSETS")
        ->check(parsed_by(parse_lod_arg));
    std::string output_dir;
    app.add_option("--output-dir", output_dir,
                   "write output_<col>.npy for every fetch, and\n"
                   "output_<col>_lod.npy (int64 offsets; deeper levels\n"
                   "output_<col>_lod<L>.npy) for an output with a LoD")
        ->type_name("DIR");
    int repeat = 1;
    app.add_option("--repeat", repeat, "time N runs after one warm-up (default 1)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    preparation_option prep;
    add_no_fuse(app, prep);
    unsigned threads = 0;
    add_threads(app, threads);
    auto* image =
        repeatable(app.add_option("--image", image_files,
                                  "feed a PNG or JPEG (repeatable: a batch of images that\n"
                                  "preprocess to one size), preprocessed as the model's\n"
                                  "config says (infer_cfg.yml or inference.yml beside it;\n"
                                  "without one: PaddleOCR's defaults for a text detector,\n"
                                  "or a resize to the input's declared size with the\n"
                                  "ImageNet mean/std); im_shape and scale_factor are fed\n"
                                  "from the resize"))
            ->type_name("FILE");
    std::string preprocess, draw;
    app.add_option("--preprocess", preprocess,
                   "the config to read instead (PaddleDetection infer_cfg.yml,\n"
                   "PaddleOCR / PaddleX / PaddleClas inference.yml)")
        ->type_name("CONFIG")
        ->needs(image);
    app.add_option("--draw", draw,
                   "with --image: draw the results (a detector's boxes at or\n"
                   "above the config's draw_threshold, with their label names;\n"
                   "a text detector's text boxes; a classifier's top classes);\n"
                   "a batch writes OUT-0.png, OUT-1.png, ...")
        ->type_name("OUT.png")
        ->needs(image);
    add_precision(app, prep);
    add_patches(app, prep);
    std::uint64_t max_arena = 0;
    auto* max_arena_opt = app.add_option("--max-arena-bytes", max_arena,
                                         "refuse a model whose planned activation arena is over N\n"
                                         "bytes (default 17179869184, 16 GiB)")
                              ->type_name("N")
                              ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50));
    bool json = false;
    add_json(app, json,
             "outputs (with `lod` when they have\n"
             "one), latency_ms, simd, memory, passes,\n"
             "kernels {int8, fp32, conversions, fp32_ops}; with\n"
             "--image: images [{file, detections [{label, name,\n"
             "score, box}] | text_boxes | classes}]\n"
             "(with --places: partition, fallbacks, ops_per_place,\n"
             "op_implementations)");
    places_option places_opt;
    add_places(app, places_opt);
    if (!parse(app, argv)) return 0;
    // Loaded, fused, placed and capped by a session (session.hpp), as a C++
    // user would; the program underneath runs the rest.
    session_options so = prep.session(shapes_of(shape_args));
    so.places = places_opt.options();
    so.threads = threads;
    if (*max_arena_opt) so.limits.max_arena_bytes = max_arena;
    session s(load_model(model), so);
    runtime::program& prog = s.program();
    const auto& report = s.passes_report();
    const auto& partition = s.partition();
    const auto& places = so.places;
    nlohmann::json places_j;
    if (places) partition_json(places_j, partition, prog.graph());

    std::map<std::string, tensor> given;
    for (auto& spec_s : inputs) {
        auto eq = spec_s.find('=');
        auto name = spec_s.substr(0, eq);
        prog.input_index(name);  // names the feeds when it is wrong
        given[name] = load_npy(spec_s.substr(eq + 1));
    }
    // --image: decoded, preprocessed as the config says, fed.
    std::vector<vision::image> images;
    std::vector<vision::result> preprocessed;
    vision::model_config config;
    std::string preprocess_source;
    std::optional<std::size_t> image_input;  // the feed --image fills
    if (!image_files.empty()) {
        image_input = image_feed(prog);
        std::filesystem::path model_path = model.source();
        const auto shapes_given = shapes_of(shape_args);
        const auto& image_var = prog.input_var(*image_input);
        auto it = shapes_given.find(image_var.name);
        std::tie(config, preprocess_source) = image_preprocessing(
            model_path,
            !preprocess.empty() ? std::optional<std::filesystem::path>(preprocess) : std::nullopt,
            image_var.shape, prog.output_var(0).shape,
            it != shapes_given.end() ? &it->second : nullptr);
        for (auto& f : image_files) {
            images.push_back(decode_image(f));
            preprocessed.push_back(vision::preprocess(images.back(), config.preprocess));
        }
        auto feed = prog.input_var(*image_input).name;
        if (given.count(feed))
            throw usage_error("input '" + feed + "' has both --input and --image");
        set_image_feeds(prog, preprocessed);
        given.erase(feed);
    }
    std::map<std::string, shape_t> shapes;
    for (auto& s : shape_args) {
        auto [name, dims] = parse_shape_arg(s);
        prog.input_index(name);
        if (given.count(name))
            throw usage_error("input '" + name + "' has both --input and --shape");
        shapes[name] = dims;
    }
    std::map<std::string, lod_t> lods;
    for (auto& s : lod_args) {
        auto [name, offsets] = parse_lod_arg(s);
        prog.input_index(name);
        lods[name].push_back(std::move(offsets));
    }
    // Plan with the large deterministic inputs' shapes alone: a plan too large
    // for the cap or the machine is refused before they are allocated.  Given
    // inputs, integer ones (ids, shapes: shape inference may read their
    // values) and LoD ones (their offsets shape the outputs) are made first.
    std::uint64_t inputs_bytes = 0;
    std::vector<std::size_t> deferred;
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        if (!images.empty() &&
            (i == *image_input || v.name == "im_shape" || v.name == "scale_factor"))
            continue;  // fed from --image
        const bool is_given = given.count(v.name) > 0;
        if (!is_given && !is_integer_type(v.type) && v.lod_level == 0 && !lods.count(v.name)) {
            const auto shape = input_shape(v, shapes);
            prog.set_input_shape(i, shape);
            inputs_bytes += checked_bytes(numel(shape), size_of(v.type));
            deferred.push_back(i);
            continue;
        }
        tensor t = is_given ? std::move(given[v.name]) : deterministic_feed(v, shapes);
        if (auto it = lods.find(v.name); it != lods.end()) {
            if (t.shape().empty())
                throw usage_error("--lod " + v.name + ": the input is a scalar, it has no rows");
            if (auto problem = lod_problem(it->second, t.shape()[0]); !problem.empty())
                throw usage_error("--lod " + v.name + ": " + problem);
            t.set_lod(it->second);
        } else if (v.lod_level > 0 && !t.shape().empty()) {
            t.set_lod({{0, t.shape()[0]}});  // one sequence of all rows
        }
        prog.set_input(i, std::move(t));
    }
    check_memory(prog, inputs_bytes, max_arena_opt->count() > 0);
    for (auto i : deferred) {
        const auto& v = prog.input_var(i);
        prog.set_input(i, deterministic_input(v.type, input_shape(v, shapes)));
    }

    using clock = std::chrono::steady_clock;
    prog.run();  // warm-up (and shape inference, planning)
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
        auto t0 = clock::now();
        prog.run();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    double median = times.size() % 2 ? times[times.size() / 2]
                                     : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;

    nlohmann::json j;
    j["outputs"] = nlohmann::json::array();
    std::filesystem::path out_dir;
    if (!output_dir.empty()) {
        out_dir = output_dir;
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        if (ec) throw io_error("cannot create " + out_dir.string() + ": " + ec.message());
    }
    for (std::size_t i = 0; i < prog.output_count(); ++i) {
        const auto& t = prog.output(i);
        nlohmann::json o{{"name", prog.output_var(i).name},
                         {"shape", t.shape},
                         {"dtype", std::string(name_of(t.type))}};
        if (!t.lod.empty()) o["lod"] = t.lod;
        if (!out_dir.empty()) {
            const auto stem = "output_" + std::to_string(prog.graph().fetches[i].col);
            auto file = out_dir / (stem + ".npy");
            save_npy(file, t);
            o["file"] = file.string();
            for (std::size_t l = 0; l < t.lod.size(); ++l) {
                const auto& level = t.lod[l];
                auto offsets = tensor::from<std::int64_t>({static_cast<std::int64_t>(level.size())},
                                                          std::span(level));
                auto lod_file =
                    out_dir / (stem + "_lod" + (l ? std::to_string(l) : std::string()) + ".npy");
                save_npy(lod_file, offsets.ref());
                if (!l) o["lod_file"] = lod_file.string();
            }
        }
        o["first_values"] = tensor_summary(t);
        j["outputs"].push_back(o);
    }
    if (!images.empty()) {
        j["preprocess"] = preprocess_source;
        j["images"] = nlohmann::json::array();
        const auto& out = prog.output(0);
        auto kind = kind_of(out);
        for (std::size_t i = 0; i < images.size(); ++i) {
            nlohmann::json r{{"file", image_files[i]}};
            if (kind == result_kind::detections)
                r["detections"] = detections(prog, config, i, config.draw_threshold);
            else if (kind == result_kind::probability_map)
                r["text_boxes"] = text_boxes(out, i, preprocessed[i]);
            else if (kind == result_kind::classes)
                r["classes"] = top_classes(out, config, i);
            j["images"].push_back(r);
        }
        if (!draw.empty()) {
            if (kind == result_kind::other)
                throw usage_error(
                    "--draw: the model's first output " + to_string(out.shape) +
                    " is neither detections [N, 6], a probability map [N, 1, H, W] nor classes "
                    "[N, C]");
            const std::filesystem::path draw_path = draw;
            for (std::size_t i = 0; i < images.size(); ++i) {
                auto file = images.size() == 1
                                ? draw_path
                                : draw_path.parent_path() /
                                      (draw_path.stem().string() + "-" + std::to_string(i) +
                                       draw_path.extension().string());
                write_png(file, draw_results(images[i], j["images"][i]));
                j["images"][i]["drawn"] = file.string();
            }
        }
    }
    j["latency_ms"] = median;
    j["repeat"] = repeat;
    j["threads"] = prog.threads();
    j["simd"] = kernels::simd::active_name();
    j["memory"] = {{"arena_bytes", prog.memory().arena_bytes},
                   {"lower_bound_bytes", prog.memory().lower_bound_bytes},
                   {"order_gain_bytes", prog.memory().order_gain_bytes}};
    j["passes"] = nlohmann::json::object();
    for (auto& [name, n] : report.counts) j["passes"][name] = n;
    j["fused"] = !prep.no_fuse;
    j["kernels"] = kernel_summary(prog);
    if (s.patches()) j["patches"] = patches_json(*s.patches(), prog.memory().lower_bound_bytes);
    if (so.input_int8) j["inputs"] = inputs_json(s.input_quantization());
    std::vector<backends::fallback> fallbacks;
    if (places) {
        fallbacks = backends::fallbacks(prog);
        j.update(places_j);
        j["fallbacks"] = fallback_json(prog.graph(), fallbacks);
    }
    if (json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    for (auto& o : j["outputs"]) {
        std::cout << "output " << o["name"].get<std::string>() << " " << o["shape"].dump() << " "
                  << o["dtype"].get<std::string>();
        if (o.contains("lod")) std::cout << " lod " << o["lod"].dump();
        std::cout << "\n  first values: " << o["first_values"].dump() << "\n";
        if (o.contains("file"))
            std::cout << "  written to " << o["file"].get<std::string>() << "\n";
    }
    if (j.contains("preprocess"))
        std::cout << "preprocess:   " << j["preprocess"].get<std::string>() << "\n";
    if (j.contains("images"))
        for (auto& im : j["images"]) {
            std::cout << "image " << im["file"].get<std::string>() << ":";
            if (im.contains("detections")) {
                std::cout << " " << im["detections"].size() << " detection(s) at or above "
                          << config.draw_threshold << "\n";
                for (auto& d : im["detections"])
                    std::cout << "  " << d["name"].get<std::string>() << " "
                              << d["score"].get<double>() << " " << d["box"].dump() << "\n";
            } else if (im.contains("text_boxes")) {
                std::cout << " " << im["text_boxes"].size() << " text box(es)\n";
                for (auto& t : im["text_boxes"]) std::cout << "  " << t["box"].dump() << "\n";
            } else if (im.contains("classes")) {
                std::cout << "\n";
                for (auto& c : im["classes"])
                    std::cout << "  " << c["name"].get<std::string>() << " "
                              << c["score"].get<double>() << "\n";
            } else {
                std::cout << " (outputs as above)\n";
            }
            if (im.contains("drawn"))
                std::cout << "  drawn to " << im["drawn"].get<std::string>() << "\n";
        }
    std::cout << "latency:      " << median << " ms (median of " << repeat << ", " << prog.threads()
              << " thread" << (prog.threads() > 1 ? "s" : "") << ")\n"
              << "arena:        " << prog.memory().arena_bytes << " bytes\n"
              << "lower bound:  " << prog.memory().lower_bound_bytes
              << " bytes (most activation bytes live at one step)\n"
              << "passes:       " << (prep.no_fuse ? "none (--no-fuse)" : report.to_string())
              << "\n"
              << "kernels:      " << j["kernels"].dump() << "\n";
    if (j.contains("patches")) print_patches(j["patches"]);
    if (j.contains("inputs")) print_inputs(j["inputs"]);
    if (places) {
        std::cout << "places:       " << places_opt.places << ": " << partition.subgraphs.size()
                  << " subgraph(s);";
        for (auto& [p, n] : partition.ops_per_place) std::cout << " " << p << " " << n << " ops";
        std::cout << "\n";
        for (auto& f : j["fallbacks"])
            std::cout << "fallback:     subgraph #" << f["sub_block"] << " ("
                      << f["backend"].get<std::string>()
                      << ") runs on the host: " << f["reason"].get<std::string>() << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
