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
#include "litegraph/runtime/sample_input.hpp"
#include "options.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

using runtime::deterministic_feed;
using runtime::deterministic_input;
using runtime::input_shape;

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
        bool on_int8 = op_trait_of(runtime::op_table{}, name, false,
                                   []<class Op>() { return op_int8_kernel<Op>(); });
        for (auto& s : ins.io.inputs)  // a subgraph or patched stage of int8 ops
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

/// The options of `litegraph run`.
struct run_args {
    model_option model;
    std::vector<std::string> inputs, shape_args, lod_args, image_files;
    std::string output_dir, preprocess, draw;
    int repeat = 1;
    preparation_option prep;
    unsigned threads = 0;
    std::uint64_t max_arena = 0;
    CLI::Option* max_arena_opt = nullptr;
    bool json = false;
    places_option places_opt;
};

inline void add_run_options(CLI::App& app, run_args& a) {
    add_model(app, a.model);
    repeatable(app.add_option("--input", a.inputs, "feed NAME from a .npy file (repeatable)"))
        ->type_name("NAME=FILE.npy")
        ->check(parsed_by([](const std::string& s) {
            auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
                throw usage_error("expects NAME=FILE.npy, got '" + s + "'");
        }));
    add_shape(app, a.shape_args);
    repeatable(app.add_option("--lod", a.lod_args,
                              "LoD of input NAME: sequence start offsets 0,L0,L0+L1,...\n"
                              "ending at its row count; repeat for NAME to add a\n"
                              "deeper level (the first given is the outermost)"))
        ->type_name("NAME=OFFSETS")
        ->check(parsed_by(parse_lod_arg));
    app.add_option("--output-dir", a.output_dir,
                   "write output_<col>.npy for every fetch, and\n"
                   "output_<col>_lod.npy (int64 offsets; deeper levels\n"
                   "output_<col>_lod<L>.npy) for an output with a LoD; with\n"
                   "--image on a segmentation model also <picture>_labels.png\n"
                   "(8-bit grey, value = label)")
        ->type_name("DIR");
    app.add_option("--repeat", a.repeat, "time N runs after one warm-up (default 1)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    add_no_fuse(app, a.prep);
    add_threads(app, a.threads);
    auto* image =
        repeatable(app.add_option("--image", a.image_files,
                                  "feed a PNG or JPEG (repeatable: a batch of images that\n"
                                  "preprocess to one size), preprocessed as the model's\n"
                                  "config says (infer_cfg.yml, inference.yml or deploy.yaml\n"
                                  "beside it;\n"
                                  "without one: PaddleOCR's defaults for a text detector,\n"
                                  "or a resize to the input's declared size with the\n"
                                  "ImageNet mean/std); im_shape and scale_factor are fed\n"
                                  "from the resize"))
            ->type_name("FILE");
    app.add_option("--preprocess", a.preprocess,
                   "the config to read instead (PaddleDetection infer_cfg.yml,\n"
                   "PaddleOCR / PaddleX / PaddleClas inference.yml,\n"
                   "PaddleSeg deploy.yaml)")
        ->type_name("CONFIG")
        ->needs(image);
    app.add_option("--draw", a.draw,
                   "with --image: draw the results (a detector's boxes at or\n"
                   "above the config's draw_threshold, with their label names;\n"
                   "a text detector's text boxes; a classifier's top classes;\n"
                   "a segmentation's label colours over the picture;\n"
                   "a keypoint model's points and skeleton lines);\n"
                   "a batch writes OUT-0.png, OUT-1.png, ...")
        ->type_name("OUT.png")
        ->needs(image);
    add_precision(app, a.prep);
    add_patches(app, a.prep);
    a.max_arena_opt = app.add_option("--max-arena-bytes", a.max_arena,
                                     "refuse a model whose planned activation arena is over N\n"
                                     "bytes (default 17179869184, 16 GiB)")
                          ->type_name("N")
                          ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50));
    add_json(app, a.json,
             "outputs (with `lod` when they have\n"
             "one), latency_ms, simd, memory, passes,\n"
             "kernels {int8, fp32, conversions, fp32_ops}; with\n"
             "--image: images [{file, detections [{label, name,\n"
             "score, box}] | text_boxes | classes |\n"
             "segmentation {label: {pixels}} |\n"
             "keypoints [[x, y, score]]}]\n"
             "(with --places: partition, fallbacks, ops_per_place,\n"
             "op_implementations)");
    add_places(app, a.places_opt);
}

/// --image: the pictures, decoded and preprocessed as the model's config says.
struct image_batch {
    std::vector<vision::image> images;
    std::vector<vision::result> preprocessed;
    vision::model_config config;
    std::string preprocess_source;
    std::optional<std::size_t> input;  // the feed --image fills
};

/// Decodes and preprocesses --image, feeds the program (its image input,
/// im_shape and scale_factor) and takes the image feed out of `given`.
inline image_batch feed_images(runtime::program& prog, const run_args& a,
                               std::map<std::string, tensor>& given) {
    image_batch b;
    if (a.image_files.empty()) return b;
    b.input = image_feed(prog);
    std::filesystem::path model_path = a.model.source();
    const auto shapes_given = shapes_of(a.shape_args);
    const auto& image_var = prog.input_var(*b.input);
    auto it = shapes_given.find(image_var.name);
    std::tie(b.config, b.preprocess_source) = image_preprocessing(
        model_path,
        !a.preprocess.empty() ? std::optional<std::filesystem::path>(a.preprocess) : std::nullopt,
        image_var.shape, prog.output_var(0).shape,
        it != shapes_given.end() ? &it->second : nullptr);
    for (auto& f : a.image_files) {
        b.images.push_back(decode_image(f));
        b.preprocessed.push_back(vision::preprocess(b.images.back(), b.config.preprocess));
    }
    auto feed = prog.input_var(*b.input).name;
    if (given.count(feed)) throw usage_error("input '" + feed + "' has both --input and --image");
    set_image_feeds(prog, b.preprocessed);
    given.erase(feed);
    return b;
}

/// Feeds every input --image did not: --input files, else deterministic
/// tensors (--shape, --lod).  The activations are planned with the large
/// deterministic inputs' shapes alone: a plan too large for the cap or the
/// machine is refused before they are allocated.  Given inputs, integer ones
/// (ids, shapes: shape inference may read their values) and LoD ones (their
/// offsets shape the outputs) are made first.
inline void feed_inputs(runtime::program& prog, const run_args& a,
                        std::map<std::string, tensor>& given, const image_batch& b) {
    std::map<std::string, shape_t> shapes;
    for (auto& s : a.shape_args) {
        auto [name, dims] = parse_shape_arg(s);
        prog.input_index(name);
        if (given.count(name))
            throw usage_error("input '" + name + "' has both --input and --shape");
        shapes[name] = dims;
    }
    std::map<std::string, lod_t> lods;
    for (auto& s : a.lod_args) {
        auto [name, offsets] = parse_lod_arg(s);
        prog.input_index(name);
        lods[name].push_back(std::move(offsets));
    }
    std::uint64_t inputs_bytes = 0;
    std::vector<std::size_t> deferred;
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        if (!b.images.empty() &&
            (i == *b.input || v.name == "im_shape" || v.name == "scale_factor"))
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
    check_memory(prog, inputs_bytes, a.max_arena_opt->count() > 0);
    for (auto i : deferred) {
        const auto& v = prog.input_var(i);
        prog.set_input(i, deterministic_input(v.type, input_shape(v, shapes)));
    }
}

/// One warm-up run (shape inference, planning), then the median of `repeat` timed runs.
inline double median_run_ms(runtime::program& prog, int repeat) {
    using clock = std::chrono::steady_clock;
    prog.run();
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
        auto t0 = clock::now();
        prog.run();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times.size() % 2 ? times[times.size() / 2]
                            : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
}

/// The outputs: name, shape, dtype, LoD, first values; written to
/// `output_dir` (.npy, and the LoD levels) when it is given.
inline nlohmann::json outputs_json(const runtime::program& prog, const std::string& output_dir) {
    nlohmann::json outputs = nlohmann::json::array();
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
        outputs.push_back(o);
    }
    return outputs;
}

/// --image: what the first output says of each picture (detections, text
/// boxes, classes, or with a PaddleSeg deploy.yaml the pixels of each label
/// of the label map taken back to the picture, its PNG written to
/// --output-dir), drawn to --draw when it is given.
inline nlohmann::json images_json(const runtime::program& prog, const run_args& a,
                                  const image_batch& b) {
    nlohmann::json images = nlohmann::json::array();
    const auto& out = prog.output(0);
    auto kind = kind_of(out);
    const bool segmentation = b.config.kind == "segmentation";
    const bool keypoints = b.config.top_down_keypoints();  // by the config, not the shape
    std::vector<vision::label_map> maps;
    for (std::size_t i = 0; i < b.images.size(); ++i) {
        nlohmann::json r{{"file", a.image_files[i]}};
        if (keypoints) {
            r.update(keypoints_of(out, b.config, i, b.preprocessed[i]));
        } else if (segmentation) {
            maps.push_back(segmentation_map(out, i, b.preprocessed[i]));
            r["segmentation"] = segmentation_json(maps.back());
            if (!a.output_dir.empty()) {
                auto file = std::filesystem::path(a.output_dir) /
                            (std::filesystem::path(a.image_files[i]).stem().string() +
                             (b.images.size() > 1 ? "-" + std::to_string(i) : std::string()) +
                             "_labels.png");
                write_label_png(file, maps.back());
                r["label_map"] = file.string();
            }
        } else if (kind == result_kind::detections)
            r["detections"] = detections(prog, b.config, i, b.config.draw_threshold);
        else if (kind == result_kind::probability_map)
            r["text_boxes"] = text_boxes(out, i, b.preprocessed[i]);
        else if (kind == result_kind::classes)
            r["classes"] = top_classes(out, b.config, i);
        images.push_back(r);
    }
    if (a.draw.empty()) return images;
    if (kind == result_kind::other && !segmentation && !keypoints)
        throw usage_error("--draw: the model's first output " + to_string(out.shape) +
                          " is neither detections [N, 6], a probability map [N, 1, H, W] nor "
                          "classes [N, C]");
    const std::filesystem::path draw_path = a.draw;
    for (std::size_t i = 0; i < b.images.size(); ++i) {
        auto file = b.images.size() == 1 ? draw_path
                                         : draw_path.parent_path() /
                                               (draw_path.stem().string() + "-" +
                                                std::to_string(i) + draw_path.extension().string());
        write_png(file, segmentation ? vision::overlay(b.images[i], maps[i])
                                     : draw_results(b.images[i], images[i]));
        images[i]["drawn"] = file.string();
    }
    return images;
}

/// The report without --json, from the JSON one.
inline void print_run(const nlohmann::json& j, const runtime::program& prog, const run_args& a,
                      const image_batch& b, const passes::pass_report& report,
                      const backends::partition_report& partition) {
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
                          << b.config.draw_threshold << "\n";
                for (auto& d : im["detections"])
                    std::cout << "  " << d["name"].get<std::string>() << " "
                              << d["score"].get<double>() << " " << d["box"].dump() << "\n";
            } else if (im.contains("text_boxes")) {
                std::cout << " " << im["text_boxes"].size() << " text box(es)\n";
                for (auto& t : im["text_boxes"]) std::cout << "  " << t["box"].dump() << "\n";
            } else if (im.contains("keypoints")) {
                std::cout << " " << im["keypoints"].size() << " keypoint(s) [x, y, score]\n";
                for (std::size_t k = 0; k < im["keypoints"].size(); ++k)
                    std::cout << "  " << k << " " << im["keypoints"][k].dump() << "\n";
            } else if (im.contains("classes")) {
                std::cout << "\n";
                for (auto& c : im["classes"])
                    std::cout << "  " << c["name"].get<std::string>() << " "
                              << c["score"].get<double>() << "\n";
            } else if (im.contains("segmentation")) {
                std::cout << " " << im["segmentation"].size() << " label(s)\n";
                for (auto& [label, c] : im["segmentation"].items())
                    std::cout << "  label " << label << ": " << c["pixels"].get<std::int64_t>()
                              << " pixels\n";
                if (im.contains("label_map"))
                    std::cout << "  label map written to " << im["label_map"].get<std::string>()
                              << "\n";
            } else {
                std::cout << " (outputs as above)\n";
            }
            if (im.contains("drawn"))
                std::cout << "  drawn to " << im["drawn"].get<std::string>() << "\n";
        }
    std::cout << "latency:      " << j["latency_ms"].get<double>() << " ms (median of " << a.repeat
              << ", " << prog.threads() << " thread" << (prog.threads() > 1 ? "s" : "") << ")\n"
              << "arena:        " << prog.memory().arena_bytes << " bytes\n"
              << "lower bound:  " << prog.memory().lower_bound_bytes
              << " bytes (most activation bytes live at one step)\n"
              << "passes:       " << (a.prep.no_fuse ? "none (--no-fuse)" : report.to_string())
              << "\n"
              << "kernels:      " << j["kernels"].dump() << "\n";
    if (j.contains("patches")) print_patches(j["patches"]);
    if (j.contains("inputs")) print_inputs(j["inputs"]);
    if (j.contains("fallbacks")) {
        std::cout << "places:       " << a.places_opt.places << ": " << partition.subgraphs.size()
                  << " subgraph(s);";
        for (auto& [p, n] : partition.ops_per_place) std::cout << " " << p << " " << n << " ops";
        std::cout << "\n";
        for (auto& f : j["fallbacks"])
            std::cout << "fallback:     subgraph #" << f["sub_block"] << " ("
                      << f["backend"].get<std::string>()
                      << ") runs on the host: " << f["reason"].get<std::string>() << "\n";
    }
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
    run_args a;
    add_run_options(app, a);
    if (!parse(app, argv)) return 0;
    // Loaded, fused, placed and capped by a session (session.hpp), as a C++
    // user would; the program underneath runs the rest.
    session_options so = a.prep.session(shapes_of(a.shape_args));
    so.places = a.places_opt.options();
    so.threads = a.threads;
    if (*a.max_arena_opt) so.limits.max_arena_bytes = a.max_arena;
    session s(load_model(a.model), so);
    runtime::program& prog = s.program();
    nlohmann::json places_j;
    if (so.places) partition_json(places_j, s.partition(), prog.graph());

    std::map<std::string, tensor> given;
    for (auto& spec_s : a.inputs) {
        auto eq = spec_s.find('=');
        auto name = spec_s.substr(0, eq);
        prog.input_index(name);  // names the feeds when it is wrong
        given[name] = load_npy(spec_s.substr(eq + 1));
    }
    const image_batch images = feed_images(prog, a, given);
    feed_inputs(prog, a, given, images);
    const double median = median_run_ms(prog, a.repeat);

    nlohmann::json j;
    j["outputs"] = outputs_json(prog, a.output_dir);
    if (!images.images.empty()) {
        j["preprocess"] = images.preprocess_source;
        j["images"] = images_json(prog, a, images);
    }
    j["latency_ms"] = median;
    j["repeat"] = a.repeat;
    j["threads"] = prog.threads();
    j["simd"] = kernels::simd::active_name();
    j["memory"] = {{"arena_bytes", prog.memory().arena_bytes},
                   {"lower_bound_bytes", prog.memory().lower_bound_bytes},
                   {"order_gain_bytes", prog.memory().order_gain_bytes}};
    j["passes"] = nlohmann::json::object();
    for (auto& [name, n] : s.passes_report().counts) j["passes"][name] = n;
    j["fused"] = !a.prep.no_fuse;
    j["kernels"] = kernel_summary(prog);
    if (s.patches()) j["patches"] = patches_json(*s.patches(), prog.memory().lower_bound_bytes);
    if (so.input_int8) j["inputs"] = inputs_json(s.input_quantization());
    if (so.places) {
        j.update(places_j);
        j["fallbacks"] = fallback_json(prog.graph(), backends::fallbacks(prog));
    }
    if (a.json)
        std::cout << j.dump(2) << "\n";
    else
        print_run(j, prog, a, images, s.passes_report(), s.partition());
    return 0;
}

}  // namespace litegraph::cli
