// The one entry point for C++ users: a session loads a Paddle model (a
// folder or a topology file, ProgramDesc or PIR), runs the pass pipeline,
// applies the places and the program's limits from one options struct, and
// runs named inputs to named outputs: what ONNX Runtime's InferenceSession,
// Paddle Inference's predictor and Paddle Lite's MobileConfig predictor give.
//
//   litegraph::session s("../shared/models/mlp_mnist_handwriting");
//   auto outputs = s.run({{s.input_names()[0], image}});
//   const litegraph::tensor& scores = outputs.at(s.output_names()[0]);
//
// The program underneath (`program()`) stays available for what the session
// does not wrap: shape-only preparation, the plan, per-instruction callbacks.
#pragma once

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/backends/backends.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/passes/input_int8.hpp"
#include "litegraph/passes/nhwc_to_nchw.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/patches.hpp"
#include "litegraph/runtime/plan_problem.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph {

/// How a quantized model runs: `int8`, its int8 kernels; `fp32`, in float
/// with its fake quant ops simulated (the pass that makes int8 ops skipped).
enum class precision_mode { int8, fp32 };

struct session_options {
    /// Run the pass pipeline (batch-norm folding, fused convs, in place, int8
    /// ops of a quantized model); false runs the graph as loaded.
    bool fuse = true;
    precision_mode precision = precision_mode::int8;
    /// Finer control of the pipeline when `fuse` is set: stop after a pass,
    /// skip passes by name (`litegraph dot --help` lists them), a callback
    /// after each. The precision's own skip is added to these.
    passes::pipeline_options pipeline{};
    /// Where ops run (backends::parse_places("opencl,cpu"), subgraph sizes);
    /// empty: every op on the CPU kernels.
    std::optional<backends::options> places{};
    /// The memory segments the program plans its activations into, fastest
    /// first (planner::segment: name, capacity); default one unbounded arena.
    std::vector<planner::segment> segments{planner::segment{}};
    /// Caps of the program: tensor elements, folded bytes, arena bytes.
    runtime::program_limits limits{};
    /// What the loader requires and allows (parameters, topology size).
    paddle::load_options load{};

    // ---- patches and the input's dtype (docs/patches.md) ----
    /// Run the first stage patch by patch (runtime/patches.hpp): the split and
    /// the grid chosen for the inputs of `patches->shapes` to minimise the
    /// peak within `patches->budget`, or the grid given.  Empty: untiled.
    std::optional<runtime::patch_request> patches{};
    /// A quantized model takes its inputs already quantized (int8, scale and
    /// zero point in preparation::inputs): no float input buffer.
    bool input_int8 = false;

    // ---- threads ----
    /// Threads an op may split its work over (runtime::program::set_threads):
    /// 0, every core (thread_pool::default_threads()); 1, the calling thread
    /// only.  The outputs are the same for every count.
    unsigned threads = 0;
};

/// The pass pipeline's options for a precision (fp32 skips quantize_int8),
/// on top of `base`.
inline passes::pipeline_options pipeline_options_for(precision_mode p,
                                                     passes::pipeline_options base = {}) {
    if (p == precision_mode::fp32) base.skip.emplace_back(passes::pass_name(passes::quantize_int8));
    return base;
}

/// What preparing a graph did: the passes that ran and the places' subgraphs.
struct preparation {
    passes::pass_report passes;
    backends::partition_report partition;
    /// With input_int8: how each input is quantized.
    std::vector<passes::input_quantization> inputs;
};

/// What a session does to a loaded graph before it builds its program: the
/// layout pass (passes::nhwc_to_nchw, always: the loader ran it on a loaded
/// model already, a graph built in code may still hold channels-last ops),
/// the pass pipeline (unless `fuse` is false) for the precision, then the
/// places.
/// Tools that need the prepared graph rather than a program (`litegraph plan`,
/// `dot`, `info`) call it too, so every entry point prepares a graph the same
/// way.
inline preparation prepare(graph::graph& g, const session_options& options) {
    preparation r;
    passes::nhwc_to_nchw(g);
    if (options.fuse)
        r.passes = passes::run_passes(g, pipeline_options_for(options.precision, options.pipeline));
    if (options.input_int8) r.inputs = passes::take_int8_inputs(g);
    if (options.places) r.partition = backends::apply_places(g, *options.places);
    return r;
}

/// The kernel factory of a program over `g` prepared with `options` (picked
/// kernels and subgraph ops with places, patched stages with patches).
inline runtime::instance_factory instance_factory_for(const session_options& options) {
    runtime::instance_factory f;
    if (options.places) f = backends::kernel_factory_for(*options.places);
    if (options.patches) f = runtime::patch_factory(f);
    return f;
}

/// With `options.patches`: chooses and applies the patched stage to the
/// prepared graph `g`; throws usage_error saying why when no stage can run on
/// patches.  Empty without patches.
inline std::optional<runtime::patch_choice> apply_patches(graph::graph& g,
                                                          const session_options& options) {
    if (!options.patches) return std::nullopt;
    auto base = options;
    base.patches.reset();
    auto c =
        runtime::patch_graph(g, *options.patches, options.segments, instance_factory_for(base));
    if (!c.found) throw usage_error("--patches: " + c.why);
    return c;
}

/// The activations of `model` (a folder or a topology file) as `litegraph
/// plan` plans them: loaded with `options.load`, prepared with `options`, the
/// inputs at their declared shapes (-1 as 1), planned into
/// `options.segments` (runtime/plan_problem.hpp).
inline runtime::plan_problem plan_problem_of(const std::string& model,
                                             const session_options& options = {}) {
    auto m = paddle::load(model, options.load);
    prepare(m.graph, options);
    return runtime::problem_for(m.graph, {}, options.segments);
}

class session {
public:
    /// Loads `model` (a folder or a topology file) and prepares it.
    explicit session(const std::filesystem::path& model, session_options options = {})
        : session(paddle::load(model, options.load), options) {}

    /// Prepares an already loaded model.
    explicit session(paddle::model m, session_options options = {}) : info_(std::move(m.info)) {
        auto prepared = prepare(m.graph, options);
        report_ = std::move(prepared.passes);
        partition_ = std::move(prepared.partition);
        inputs_ = std::move(prepared.inputs);
        patches_ = apply_patches(m.graph, options);
        program_ = std::make_unique<runtime::program>(std::move(m.graph), options.segments,
                                                      instance_factory_for(options));
        program_->set_limits(options.limits);
        program_->set_threads(options.threads);
    }

    /// The model's inputs, in feed order.
    std::vector<std::string> input_names() const {
        std::vector<std::string> r;
        for (std::size_t i = 0; i < program_->input_count(); ++i)
            r.push_back(program_->input_var(i).name);
        return r;
    }
    /// The model's outputs, in fetch order.
    std::vector<std::string> output_names() const {
        std::vector<std::string> r;
        for (std::size_t i = 0; i < program_->output_count(); ++i)
            r.push_back(program_->output_var(i).name);
        return r;
    }

    /// Runs on `inputs` (every input once, by name; a tensor's LoD goes
    /// with it) and returns every output by name, copied out of the arena.
    /// An unknown or missing name is a usage_error naming the inputs.
    std::map<std::string, tensor> run(const std::map<std::string, tensor>& inputs) {
        for (const auto& [name, t] : inputs) program_->set_input(program_->input_index(name), t);
        if (inputs.size() != program_->input_count()) {
            std::string missing;
            for (const auto& n : input_names())
                if (!inputs.count(n)) missing += (missing.empty() ? "" : ", ") + n;
            throw usage_error("session::run: no tensor for input(s) " + missing);
        }
        program_->run();
        std::map<std::string, tensor> out;
        for (std::size_t i = 0; i < program_->output_count(); ++i)
            out.insert_or_assign(program_->output_var(i).name, copy_of(program_->output(i)));
        return out;
    }

    /// The program underneath (its plan, per-instruction runs, shapes).
    runtime::program& program() noexcept { return *program_; }
    const runtime::program& program() const noexcept { return *program_; }
    /// What the loader read (format, files, op counts).
    const paddle::model_info& info() const noexcept { return info_; }
    /// Which passes ran and their rewrites (empty with `fuse = false`).
    const passes::pass_report& passes_report() const noexcept { return report_; }
    /// The subgraphs and places of `options.places` (empty without it).
    const backends::partition_report& partition() const noexcept { return partition_; }
    /// The patched stage chosen (empty without `options.patches`).
    const std::optional<runtime::patch_choice>& patches() const noexcept { return patches_; }
    /// How each input is quantized (with `options.input_int8`).
    const std::vector<passes::input_quantization>& input_quantization() const noexcept {
        return inputs_;
    }

private:
    static tensor copy_of(const tensor_ref& r) {
        tensor t(r.type, r.shape);
        if (t.bytes()) std::memcpy(t.data(), r.data, t.bytes());
        if (!r.lod.empty()) t.set_lod(r.lod);
        return t;
    }

    paddle::model_info info_;
    passes::pass_report report_;
    backends::partition_report partition_;
    std::optional<runtime::patch_choice> patches_;
    std::vector<passes::input_quantization> inputs_;
    std::unique_ptr<runtime::program> program_;
};

}  // namespace litegraph
