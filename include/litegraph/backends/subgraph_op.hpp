// The `subgraph` op at run time.  It holds its sub-block (the original ops)
// and a host program of them, which infers the shapes.  At its first run (and
// whenever an input shape changes) it asks its backend's engine to convert the
// sub-block to the device's IR and build it; the engine then runs with copies
// only at the subgraph's borders.  When conversion or building fails, the
// subgraph runs its original ops on the host and remembers why.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "litegraph/backends/place.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::backends {

/// A device's compiled form of one sub-block.
class subgraph_engine {
public:
    virtual ~subgraph_engine() = default;
    /// Converts and builds `block` for the shapes `host` inferred (host has
    /// run prepare_plan).  Throws an error saying why it cannot.
    virtual void build(const graph::graph& block, const runtime::program& host) = 0;
    /// Runs on the device: inputs are the block's feeds, outputs its fetches.
    virtual void run(const std::vector<const tensor_ref*>& inputs,
                     const std::vector<tensor_ref*>& outputs) = 0;
    /// How many device kernels one run enqueues (after build).
    virtual int kernel_count() const { return 0; }
};

/// A backend that converts whole subgraphs (the guide's "IR" way).
class subgraph_backend {
public:
    virtual ~subgraph_backend() = default;
    virtual std::string_view name() const = 0;
    virtual target where() const = 0;
    /// The teller: empty when the backend converts `op` of `g`, else why not.
    virtual std::string refuses(const graph::graph& g, const graph::op_node& op) const = 0;
    /// What conversion will refuse in `block`, checked without shapes (for
    /// `litegraph info`); empty when nothing.  build() checks it too.
    virtual std::string precheck(const graph::graph& block) const {
        (void)block;
        return {};
    }
    virtual std::unique_ptr<subgraph_engine> make_engine() const = 0;
};

/// The kernel of a `subgraph` op.
class subgraph_instance final : public op_instance {
public:
    subgraph_instance(graph::graph block, std::shared_ptr<const subgraph_backend> backend)
        : backend_(std::move(backend)), host_(std::move(block)) {}

    void infer(op_io& io) override {
        auto& ins = io.inputs.at(0).args;
        auto& outs = io.outputs.at(0).args;
        io.check(ins.size() == host_.input_count() && outs.size() == host_.output_count(),
                 "the op's inputs and outputs do not match its sub-block");
        std::vector<shape_t> shapes;
        for (auto* a : ins) shapes.push_back(a->shape);
        if (shapes != shapes_) {
            for (std::size_t i = 0; i < ins.size(); ++i)
                host_.set_input(i, tensor(ins[i]->type, ins[i]->shape));
            host_.prepare_plan();
            shapes_ = shapes;
            built_ = false;  // rebuild for the new shapes
        }
        for (std::size_t i = 0; i < outs.size(); ++i) {
            outs[i]->type = host_.output(i).type;
            outs[i]->shape = host_.output(i).shape;
        }
    }

    void run(op_io& io) override {
        auto& ins = io.inputs.at(0).args;
        auto& outs = io.outputs.at(0).args;
        if (!built_) build();
        if (engine_) {
            std::vector<const tensor_ref*> in(ins.begin(), ins.end());
            engine_->run(in, outs);
            return;
        }
        // The original ops on the host, data copied in and out.
        for (std::size_t i = 0; i < ins.size(); ++i) {
            tensor t(ins[i]->type, ins[i]->shape);
            if (t.bytes()) std::memcpy(t.data(), ins[i]->data, t.bytes());
            host_.set_input(i, std::move(t));
        }
        host_.run();
        for (std::size_t i = 0; i < outs.size(); ++i) {
            const auto& o = host_.output(i);
            if (o.bytes()) std::memcpy(outs[i]->data, o.data, o.bytes());
        }
    }

    bool folds_from_shapes() const noexcept override { return false; }
    std::string_view name() const noexcept override { return "subgraph"; }

    const subgraph_backend& backend() const noexcept { return *backend_; }
    const graph::graph& block() const noexcept { return host_.graph(); }
    /// Whether the last run went to the device (false: the host fallback).
    bool on_device() const noexcept { return engine_ != nullptr; }
    /// Why the subgraph fell back to the host (empty when it did not).
    const std::string& fallback_reason() const noexcept { return reason_; }
    int device_kernels() const noexcept { return engine_ ? engine_->kernel_count() : 0; }

private:
    void build() {
        built_ = true;
        engine_.reset();
        reason_.clear();
        try {
            auto e = backend_->make_engine();
            e->build(host_.graph(), host_);
            engine_ = std::move(e);
        } catch (const std::exception& ex) {
            reason_ = ex.what();
        }
    }

    std::shared_ptr<const subgraph_backend> backend_;
    runtime::program host_;
    std::vector<shape_t> shapes_;
    std::unique_ptr<subgraph_engine> engine_;
    std::string reason_;
    bool built_ = false;
};

}  // namespace litegraph::backends
