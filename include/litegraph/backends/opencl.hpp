// The OpenCL subgraph backend.  The teller (backend::refuses) accepts the
// conv family (plain, depthwise and fused_conv2d with its bias, activation,
// residual and SE-gate epilogues), transposed conv, pooling, batch norm,
// element-wise ops, activations, nearest resize and concat.  The engine
// converts each op of a sub-block into one launch of a kernel of one OpenCL
// program (opencl_kernels.hpp): a fused chain such as conv + bias + hard_swish
// or the SE gate is one launch.  Activations live in device buffers; only
// the sub-block's feeds and fetches cross to the host.
//
// Needs <CL/cl.h> and an ICD loader (Debian: opencl-headers,
// ocl-icd-opencl-dev; a device such as pocl-opencl-icd).  Compiled only with
// LITEGRAPH_WITH_OPENCL (CMake target litegraph::opencl).
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "litegraph/backends/opencl_kernels.hpp"
#include "litegraph/backends/subgraph_op.hpp"
#include "litegraph/fusion/fused.hpp"
#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/ops/concat.hpp"
#include "litegraph/ops/conv2d.hpp"
#include "litegraph/ops/conv2d_transpose.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/nearest_interp_v2.hpp"
#include "litegraph/ops/pool2d.hpp"

namespace litegraph::backends::opencl {

/// The op the fused conv kernels share (`fused_conv2d`).
using fused_conv_op = first_op<fusion::fused_conv_ops>::type;

/// The op types the OpenCL backend runs, by kernel family.  A conv: ops::conv2d
/// (plain and depthwise) or a fused conv.
inline bool is_conv_type(std::string_view t) {
    return op_declares<ops::conv2d>(t) || op_declares<fused_conv_op>(t);
}
/// The transposed conv (not its depthwise form).
inline bool is_conv_transpose_type(std::string_view t) {
    return t == ops::conv2d_transpose::paddle_types[0];
}
/// Nearest resize (interp_v2's first type; the other modes have no kernel).
inline bool is_nearest_type(std::string_view t) {
    return t == ops::interp_v2::paddle_types[0];
}

/// The element-wise op code of the `eltwise` kernel (0 add, 1 sub, 2 mul,
/// 3 div), or -1 for an op it does not run.
inline int eltwise_code(std::string_view t) {
    using kind = ops::elementwise::kind;
    constexpr kind kinds[] = {kind::add, kind::sub, kind::mul, kind::div};
    for (int i = 0; i < 4; ++i)
        if (t == ops::elementwise::type_of(kinds[i])) return i;
    return -1;
}

/// An OpenCL failure: the call and its error code.
inline void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS)
        throw unsupported_error(std::string("OpenCL: ") + what + " failed (error " +
                                std::to_string(err) + ")");
}

/// The first OpenCL device (of the first platform that has one), its context,
/// queue and the built program; created once per process.
struct device {
    cl_device_id id = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    cl_program program = nullptr;
    std::string name;
    std::string error;  // why there is none, when there is none

    bool ok() const noexcept { return program != nullptr; }

    static device& shared() {
        static device d = open();
        return d;
    }

private:
    static device open() {
        device d;
        try {
            cl_uint np = 0;
            if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
                throw unsupported_error(
                    "no OpenCL platform found (is an ICD such as "
                    "pocl-opencl-icd installed?)");
            std::vector<cl_platform_id> ps(np);
            check(clGetPlatformIDs(np, ps.data(), nullptr), "clGetPlatformIDs");
            for (auto p : ps) {
                cl_uint nd = 0;
                if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d.id, &nd) == CL_SUCCESS && nd > 0)
                    break;
                d.id = nullptr;
            }
            if (!d.id) throw unsupported_error("no OpenCL device found");
            char buf[256] = {};
            clGetDeviceInfo(d.id, CL_DEVICE_NAME, sizeof buf - 1, buf, nullptr);
            d.name = buf;
            cl_int err = 0;
            d.context = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &err);
            check(err, "clCreateContext");
            d.queue = clCreateCommandQueue(d.context, d.id, 0, &err);
            check(err, "clCreateCommandQueue");
            const char* src = program_source().c_str();
            d.program = clCreateProgramWithSource(d.context, 1, &src, nullptr, &err);
            check(err, "clCreateProgramWithSource");
            if (clBuildProgram(d.program, 1, &d.id, "", nullptr, nullptr) != CL_SUCCESS) {
                std::size_t n = 0;
                clGetProgramBuildInfo(d.program, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
                std::string log(n, '\0');
                clGetProgramBuildInfo(d.program, d.id, CL_PROGRAM_BUILD_LOG, n, log.data(),
                                      nullptr);
                clReleaseProgram(d.program);
                d.program = nullptr;
                throw unsupported_error("OpenCL program build failed: " + log);
            }
        } catch (const litegraph::error& e) {
            d.error = e.what();
        }
        return d;
    }
};

/// Whether an OpenCL device is usable here (tests skip without one).
inline bool available(std::string* why = nullptr) {
    auto& d = device::shared();
    if (!d.ok() && why) *why = d.error;
    return d.ok();
}

/// The activation code and parameters of a Paddle activation type with its
/// attributes (the empty type: no activation); false when the OpenCL kernels
/// have no code for it (its functor declares no `opencl` expression).
inline bool activation_of(std::string_view type, const attr_map& a, int& code, float p[3]) {
    p[0] = p[1] = p[2] = 0.f;
    code = act_none;
    if (type.empty()) return true;
    int k = 0;
    return ops::any_functor(ops::opencl_activations{}, [&]<class F>() {
        ++k;
        if (F::paddle_type != type) return false;
        code = k;
        const auto fields = ops::fields_of(F::parse(a));
        static_assert(std::tuple_size_v<decltype(fields)> <= 3,
                      "an OpenCL activation has at most three parameters (p0, p1, p2)");
        std::apply(
            [&](auto... v) {
                int i = 0;
                ((p[i++] = static_cast<float>(v)), ...);
            },
            fields);
        return true;
    });
}

/// Whether the OpenCL kernels run activation type `t`.
inline bool is_activation_type(std::string_view t) {
    return ops::names_functor<ops::opencl_activations>(t);
}

/// One sub-block converted: device buffers and the launches of one run.
class engine final : public subgraph_engine {
public:
    engine() : dev_(device::shared()) {}
    ~engine() override {
        for (auto& [v, m] : mem_) clReleaseMemObject(m);
        for (auto m : extra_) clReleaseMemObject(m);
        for (auto& [n, k] : kernels_) clReleaseKernel(k);
    }

    void build(const graph::graph& block, const runtime::program& host) override {
        if (!dev_.ok()) throw unsupported_error(dev_.error);
        block_ = &block;
        host_ = &host;
        // Activations: the feeds and whatever an unfolded instruction writes.
        std::set<int> produced;
        for (auto& f : block.feeds) produced.insert(f.var);
        for (auto& ins : host.instructions())
            if (!ins.folded)
                for (auto& s : block.ops[ins.op].outputs)
                    for (int v : s.vars) produced.insert(v);
        produced_ = produced;
        dummy_ = buffer_of_bytes(sizeof(float), nullptr);
        for (auto& ins : host.instructions()) {
            if (ins.folded) continue;
            convert(block.ops[ins.op], ins.io);
        }
        for (auto& f : block.feeds) inputs_.push_back(mem(f.var));
        for (auto& f : block.fetches) outputs_.push_back(mem(f.var));
        check(clFinish(dev_.queue), "clFinish (uploading constants)");
    }

    void run(const std::vector<const tensor_ref*>& in,
             const std::vector<tensor_ref*>& out) override {
        for (std::size_t i = 0; i < in.size(); ++i)
            if (in[i]->bytes())
                check(clEnqueueWriteBuffer(dev_.queue, inputs_[i], CL_FALSE, 0, in[i]->bytes(),
                                           in[i]->data, 0, nullptr, nullptr),
                      "clEnqueueWriteBuffer");
        for (auto& l : launches_) l();
        for (std::size_t i = 0; i < out.size(); ++i)
            if (out[i]->bytes())
                check(clEnqueueReadBuffer(dev_.queue, outputs_[i], CL_FALSE, 0, out[i]->bytes(),
                                          out[i]->data, 0, nullptr, nullptr),
                      "clEnqueueReadBuffer");
        check(clFinish(dev_.queue), "clFinish");
    }

    int kernel_count() const override { return static_cast<int>(launches_.size()); }

private:
    // --- buffers ---------------------------------------------------------
    cl_mem buffer_of_bytes(std::size_t bytes, const void* data) {
        cl_int err = 0;
        cl_mem m = clCreateBuffer(dev_.context, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 4),
                                  nullptr, &err);
        check(err, "clCreateBuffer");
        extra_.push_back(m);
        if (data && bytes)
            check(clEnqueueWriteBuffer(dev_.queue, m, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        return m;
    }
    /// The device buffer of sub-block variable `v` (constants uploaded once).
    cl_mem mem(int v) {
        if (auto it = mem_.find(v); it != mem_.end()) return it->second;
        const auto& r = host_->var(v);
        if (r.type != dtype::f32)
            throw unsupported_error("variable '" + block_->vars[v].name + "' is " +
                                    std::string(name_of(r.type)) +
                                    " (the OpenCL kernels are float32)");
        cl_int err = 0;
        cl_mem m = clCreateBuffer(dev_.context, CL_MEM_READ_WRITE,
                                  std::max<std::size_t>(r.bytes(), 4), nullptr, &err);
        check(err, "clCreateBuffer");
        mem_.emplace(v, m);
        if (!produced_.count(v)) {
            if (!r.data)
                throw unsupported_error("constant '" + block_->vars[v].name + "' has no data");
            check(clEnqueueWriteBuffer(dev_.queue, m, CL_TRUE, 0, r.bytes(), r.data, 0, nullptr,
                                       nullptr),
                  "clEnqueueWriteBuffer");
        }
        return m;
    }
    cl_mem mem_of(const op_io& io, const graph::op_node& op, std::string_view slot,
                  std::size_t i = 0, bool input = true) {
        (void)io;
        int v = input ? graph::input_var(op, slot, i) : graph::output_var(op, slot, i);
        if (v < 0) throw unsupported_error("op " + op.type + " has no " + std::string(slot));
        return mem(v);
    }

    cl_kernel kernel_named(const char* name) {
        if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
        cl_int err = 0;
        cl_kernel k = clCreateKernel(dev_.program, name, &err);
        check(err, "clCreateKernel");
        kernels_.emplace(name, k);
        return k;
    }

    /// An argument list for one launch, set at run time in order.
    struct args {
        std::vector<std::function<void(cl_kernel, cl_uint)>> setters;
        args& mem(cl_mem m) {
            setters.push_back([m](cl_kernel k, cl_uint i) {
                check(clSetKernelArg(k, i, sizeof(cl_mem), &m), "clSetKernelArg");
            });
            return *this;
        }
        args& i32(std::int64_t v) {
            auto x = static_cast<cl_int>(v);
            setters.push_back([x](cl_kernel k, cl_uint i) {
                check(clSetKernelArg(k, i, sizeof(cl_int), &x), "clSetKernelArg");
            });
            return *this;
        }
        args& i64(std::int64_t v) {
            auto x = static_cast<cl_long>(v);
            setters.push_back([x](cl_kernel k, cl_uint i) {
                check(clSetKernelArg(k, i, sizeof(cl_long), &x), "clSetKernelArg");
            });
            return *this;
        }
        args& f32(float v) {
            setters.push_back([v](cl_kernel k, cl_uint i) {
                check(clSetKernelArg(k, i, sizeof(cl_float), &v), "clSetKernelArg");
            });
            return *this;
        }
    };

    void launch(const char* name, args a, std::vector<std::size_t> global) {
        cl_kernel k = kernel_named(name);
        // One fixed work-group shape (the kernels check their bounds): an
        // implementation that compiles a work-group function per local size
        // (PoCL) then compiles each kernel once, not once per shape.
        for (auto& g : global) g = std::max<std::size_t>(g, 1);
        global[0] = (global[0] + work_group - 1) / work_group * work_group;
        std::vector<std::size_t> local(global.size(), 1);
        local[0] = work_group;
        auto q = dev_.queue;
        launches_.push_back([k, a = std::move(a), global, local, q, name]() {
            for (cl_uint i = 0; i < a.setters.size(); ++i) a.setters[i](k, i);
            check(clEnqueueNDRangeKernel(q, k, static_cast<cl_uint>(global.size()), nullptr,
                                         global.data(), local.data(), 0, nullptr, nullptr),
                  name);
        });
    }

    // --- conversion --------------------------------------------------------
    void convert(const graph::op_node& op, const op_io& io) {
        const auto& t = op.type;
        if (is_conv_type(t)) return convert_conv(op, io);
        if (is_conv_transpose_type(t)) return convert_conv_transpose(op, io);
        if (op_declares<ops::pool2d>(t)) return convert_pool(op, io);
        if (eltwise_code(t) >= 0) return convert_eltwise(op, io);
        if (op_declares<ops::batch_norm>(t)) return convert_batch_norm(op, io);
        if (is_activation_type(t)) return convert_activation(op, io);
        if (is_nearest_type(t)) return convert_nearest(op, io);
        if (op_declares<ops::concat>(t)) return convert_concat(op, io);
        throw unsupported_error("the OpenCL backend has no converter for op " + t);
    }

    void convert_conv(const graph::op_node& op, const op_io& io) {
        const auto p = ops::conv2d::parse(op.attrs, op.type);
        const auto g = ops::conv2d::resolve(p, io);
        int act = act_none;
        float ap[3];
        // A fused conv's activation and writing stage (its `stages`).
        std::string act_type;
        std::string_view terminal = fusion::stage_name<fusion::store>();
        if (op_declares<fused_conv_op>(op.type)) {
            act_type = fusion::chain_activation(op.attrs);
            terminal = fusion::chain_terminal(op.attrs);
        }
        if (!activation_of(act_type, op.attrs, act, ap))
            throw unsupported_error("op " + io.label + ": the OpenCL conv has no activation '" +
                                    act_type + "'");
        int term = term_store;
        std::int64_t plane = 1;
        cl_mem other = dummy_;
        if (terminal == fusion::stage_name<fusion::add_with>())
            term = term_add_with;
        else if (terminal == fusion::stage_name<fusion::mul_with>())
            term = term_mul_with;
        else if (terminal == fusion::stage_name<fusion::mul_plane>())
            term = term_mul_plane;
        else if (terminal != fusion::stage_name<fusion::store>())
            throw unsupported_error("op " + io.label + ": terminal '" + std::string(terminal) +
                                    "'");
        if (term != term_store) {
            other = mem_of(io, op, "Other");
            if (term == term_mul_plane) {
                const auto& o = io.input("Other");
                plane = o.shape[2] * o.shape[3];
            }
        }
        // 0: no bias, 1: + bias, 2: * scale + bias (a folded batch norm).
        const bool has_scale = io.input_count("Scale") > 0;
        const int has_bias = io.input_count("Bias") > 0 ? (has_scale ? 2 : 1) : 0;
        if (has_scale && !has_bias)
            throw unsupported_error("op " + io.label + ": a Scale without a Bias");
        args a;
        a.mem(mem_of(io, op, "Input"))
            .mem(mem_of(io, op, "Filter"))
            .mem(has_bias ? mem_of(io, op, "Bias") : dummy_)
            .mem(has_scale ? mem_of(io, op, "Scale") : dummy_)
            .mem(other)
            .mem(mem_of(io, op, "Output", 0, false));
        const auto sz = [](std::int64_t v) { return static_cast<std::size_t>(v); };
        if (term != term_mul_plane && g.groups == 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 &&
            g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w) {
            const std::int64_t plane_px = g.oh * g.ow;
            a.i32(g.c).i32(g.oc).i32(plane_px);
            a.i32(has_bias).i32(act).f32(ap[0]).f32(ap[1]).f32(ap[2]).i32(term);
            launch("conv1x1", std::move(a), {sz((plane_px + 3) / 4), sz((g.oc + 3) / 4), sz(g.n)});
            return;
        }
        if (term != term_mul_plane && g.groups == g.c && g.oc == g.c) {
            for (auto v :
                 {g.c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl})
                a.i32(v);
            a.i32(has_bias).i32(act).f32(ap[0]).f32(ap[1]).f32(ap[2]).i32(term);
            launch("dwconv", std::move(a), {sz(g.ow), sz(g.oh), sz(g.n * g.c)});
            return;
        }
        for (auto v : {g.c, g.h, g.w, g.oc, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt,
                       g.pl, g.groups})
            a.i32(v);
        a.i32(has_bias).i32(act).f32(ap[0]).f32(ap[1]).f32(ap[2]).i32(term).i32(plane);
        const std::int64_t blocks = (g.oc + 3) / 4;
        launch("conv_general", std::move(a),
               {static_cast<std::size_t>(g.ow), static_cast<std::size_t>(g.oh),
                static_cast<std::size_t>(g.n * blocks)});
    }

    void convert_conv_transpose(const graph::op_node& op, const op_io& io) {
        const auto p = ops::conv2d_transpose::parse(op.attrs, op.type);
        const auto g = ops::conv2d_transpose::resolve(p, io);
        const bool has_bias = io.input_count("Bias") > 0;
        args a;
        a.mem(mem_of(io, op, "Input"))
            .mem(mem_of(io, op, "Filter"))
            .mem(has_bias ? mem_of(io, op, "Bias") : dummy_)
            .mem(mem_of(io, op, "Output", 0, false));
        for (auto v : {g.c, g.h, g.w, g.oc, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt,
                       g.pl, g.groups})
            a.i32(v);
        a.i32(has_bias);
        launch("conv_transpose", std::move(a),
               {static_cast<std::size_t>(g.ow), static_cast<std::size_t>(g.oh),
                static_cast<std::size_t>(g.n * g.oc)});
    }

    void convert_pool(const graph::op_node& op, const op_io& io) {
        const auto p = ops::pool2d::parse(op.attrs, op.type);
        const auto g = ops::pool2d::resolve(p, io);
        args a;
        a.mem(mem_of(io, op, "X")).mem(mem_of(io, op, "Out", 0, false));
        for (auto v : {g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.pt, g.pl}) a.i32(v);
        a.i32(p.max).i32(p.exclusive).i32(p.adaptive);
        launch("pool", std::move(a),
               {static_cast<std::size_t>(g.ow), static_cast<std::size_t>(g.oh),
                static_cast<std::size_t>(g.n * g.c)});
    }

    void convert_eltwise(const graph::op_node& op, const op_io& io) {
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        const auto& out = io.output("Out");
        if (x.type != dtype::f32 || y.type != dtype::f32)
            throw unsupported_error("op " + io.label + ": only float32 element-wise ops");
        if (op.attrs.has("act") || op.attrs.has("fuse_activation"))
            if (!op.attrs.get<std::string>("act", op.attrs.get<std::string>("fuse_activation", ""))
                     .empty())
                throw unsupported_error("op " + io.label + ": a fused activation");
        auto b = ops::paddle_broadcast(
            x.shape, y.shape, static_cast<int>(op.attrs.get<std::int64_t>("axis", -1)), io);
        const std::size_t n = b.out.size();
        if (n > 6) throw unsupported_error("op " + io.label + ": rank above 6");
        // Pad to 6 dims in front; strides of X and Y in elements (0: broadcast).
        std::int64_t d[6], sx[6], sy[6];
        auto fill = [&](const shape_t& dims, std::int64_t* s) {
            std::int64_t stride = 1;
            for (int k = 5; k >= 0; --k) {
                const int src = k - (6 - static_cast<int>(n));
                const std::int64_t dim = src >= 0 ? dims[src] : 1;
                const std::int64_t od = src >= 0 ? b.out[src] : 1;
                s[k] = (dim == 1 && od != 1) ? 0 : stride;
                stride *= dim;
            }
        };
        for (int k = 0; k < 6; ++k) {
            const int src = k - (6 - static_cast<int>(n));
            d[k] = src >= 0 ? b.out[src] : 1;
        }
        fill(b.x, sx);
        fill(b.y, sy);
        const int code = eltwise_code(op.type);
        const std::int64_t total = out.numel();
        args a;
        a.mem(mem_of(io, op, "X")).mem(mem_of(io, op, "Y")).mem(mem_of(io, op, "Out", 0, false));
        a.i32(code).i64(total);
        for (int k = 1; k < 6; ++k) a.i32(d[k]);
        for (int k = 0; k < 6; ++k) a.i64(sx[k]);
        for (int k = 0; k < 6; ++k) a.i64(sy[k]);
        launch("eltwise", std::move(a), {static_cast<std::size_t>(total)});
    }

    void affine(const op_io& io, cl_mem x, cl_mem y, cl_mem sa, cl_mem sb, bool has, std::int64_t c,
                std::int64_t plane, std::int64_t total, int act, const float* ap) {
        (void)io;
        args a;
        a.mem(x).mem(sa).mem(sb).mem(y).i64(total).i32(c).i64(plane).i32(has).i32(act);
        a.f32(ap[0]).f32(ap[1]).f32(ap[2]);
        launch("affine_act", std::move(a), {static_cast<std::size_t>(total)});
    }

    void convert_batch_norm(const graph::op_node& op, const op_io& io) {
        const auto& x = io.input("X");
        if (x.shape.size() < 2) throw unsupported_error("op " + io.label + ": rank below 2");
        const float eps = op.attrs.get<float>("epsilon", 1e-5f);
        const auto c = x.shape[1];
        std::int64_t plane = 1;
        for (std::size_t k = 2; k < x.shape.size(); ++k) plane *= x.shape[k];
        const float* scale = io.input("Scale").as<float>();
        const float* bias = io.input("Bias").as<float>();
        const float* mean = io.input("Mean").as<float>();
        const float* var = io.input("Variance").as<float>();
        if (!scale || !bias || !mean || !var)
            throw unsupported_error("op " + io.label + ": batch norm statistics not constant");
        std::vector<float> sa(c), sb(c);
        for (std::int64_t k = 0; k < c; ++k) {
            const float inv_std = 1.f / std::sqrt(var[k] + eps);
            sa[k] = scale[k] * inv_std;
            sb[k] = bias[k] - mean[k] * scale[k] * inv_std;
        }
        float ap[3] = {0, 0, 0};
        affine(io, mem_of(io, op, "X"), mem_of(io, op, "Y", 0, false),
               buffer_of_bytes(c * sizeof(float), sa.data()),
               buffer_of_bytes(c * sizeof(float), sb.data()), true, c, plane, x.numel(), act_none,
               ap);
    }

    void convert_activation(const graph::op_node& op, const op_io& io) {
        int act = 0;
        float ap[3];
        if (!activation_of(op.type, op.attrs, act, ap))
            throw unsupported_error("op " + io.label + ": the OpenCL kernels have no " + op.type);
        const auto& x = io.input("X");
        affine(io, mem_of(io, op, "X"), mem_of(io, op, "Out", 0, false), dummy_, dummy_, false, 1,
               1, x.numel(), act, ap);
    }

    void convert_nearest(const graph::op_node& op, const op_io& io) {
        const auto p = ops::interp_v2::parse(op.attrs, op.type);
        if (!p.nearest) throw unsupported_error("op " + io.label + ": only nearest resize");
        const auto g = ops::interp_v2::resolve(p, io);
        const float rh = ops::interp_v2::ratio(p, g.in_h, g.out_h, g.scale_h);
        const float rw = ops::interp_v2::ratio(p, g.in_w, g.out_w, g.scale_w);
        const bool same = g.in_h == g.out_h && g.in_w == g.out_w;
        auto index = [&](float r, std::int64_t o, std::int64_t in) {
            if (same) return static_cast<cl_int>(o);
            const float f = r * static_cast<float>(o);
            const auto i =
                p.align_corners ? static_cast<std::int64_t>(f + 0.5) : static_cast<std::int64_t>(f);
            return static_cast<cl_int>(std::clamp<std::int64_t>(i, 0, in - 1));
        };
        std::vector<cl_int> rows(g.out_h), cols(g.out_w);
        for (std::int64_t k = 0; k < g.out_h; ++k) rows[k] = index(rh, k, g.in_h);
        for (std::int64_t l = 0; l < g.out_w; ++l) cols[l] = index(rw, l, g.in_w);
        args a;
        a.mem(mem_of(io, op, "X"))
            .mem(buffer_of_bytes(rows.size() * sizeof(cl_int), rows.data()))
            .mem(buffer_of_bytes(cols.size() * sizeof(cl_int), cols.data()))
            .mem(mem_of(io, op, "Out", 0, false));
        a.i32(g.in_h).i32(g.in_w).i32(g.out_h).i32(g.out_w);
        launch("gather2d", std::move(a),
               {static_cast<std::size_t>(g.out_w), static_cast<std::size_t>(g.out_h),
                static_cast<std::size_t>(g.n * g.c)});
    }

    void convert_concat(const graph::op_node& op, const op_io& io) {
        if (io.has_input("AxisTensor"))
            throw unsupported_error("op " + io.label + ": an AxisTensor input");
        const auto& out = io.output("Out");
        auto axis = op.attrs.get<std::int64_t>("axis", 0);
        const auto rank = static_cast<std::int64_t>(out.shape.size());
        if (axis < 0) axis += rank;
        std::int64_t inner_dst = 1;
        for (std::int64_t k = axis; k < rank; ++k) inner_dst *= out.shape[k];
        std::int64_t offset = 0;
        cl_mem dst = mem_of(io, op, "Out", 0, false);
        for (std::size_t i = 0; i < io.input_count("X"); ++i) {
            const auto& x = io.input("X", i);
            std::int64_t inner = 1;
            for (std::int64_t k = axis; k < rank; ++k) inner *= x.shape[k];
            args a;
            a.mem(mem_of(io, op, "X", i))
                .mem(dst)
                .i64(x.numel())
                .i64(inner)
                .i64(inner_dst)
                .i64(offset);
            launch("copy_slab", std::move(a), {static_cast<std::size_t>(x.numel())});
            offset += inner;
        }
    }

    static constexpr std::size_t work_group = 8;
    device& dev_;
    const graph::graph* block_ = nullptr;
    const runtime::program* host_ = nullptr;
    std::set<int> produced_;
    std::map<int, cl_mem> mem_;
    std::vector<cl_mem> extra_;
    cl_mem dummy_ = nullptr;
    std::map<std::string, cl_kernel> kernels_;
    std::vector<std::function<void()>> launches_;
    std::vector<cl_mem> inputs_, outputs_;
};

/// The backend: its teller and its engine.
class backend final : public subgraph_backend {
public:
    std::string_view name() const override { return "opencl"; }
    target where() const override { return target::opencl; }

    std::string refuses(const graph::graph& g, const graph::op_node& op) const override {
        const auto& t = op.type;
        // Every data input and output float32.
        for (auto* slots : {&op.inputs, &op.outputs})
            for (auto& s : *slots)
                for (int v : s.vars)
                    if (g.vars[v].type != dtype::f32 &&
                        !(op_declares<ops::batch_norm>(t) && s.name != "X"))
                        return "a " + std::string(name_of(g.vars[v].type)) + " tensor";
        auto layout = op.attrs.get<std::string>("data_format",
                                                op.attrs.get<std::string>("data_layout", "NCHW"));
        if (layout != "NCHW" && layout != "AnyLayout") return "layout " + layout;
        if (is_conv_type(t)) return {};
        if (is_conv_transpose_type(t)) return {};
        if (op_declares<ops::pool2d>(t)) return {};
        if (eltwise_code(t) >= 0) return {};
        if (op_declares<ops::batch_norm>(t)) return {};
        if (is_activation_type(t)) return {};
        if (is_nearest_type(t)) {
            // Sizes from tensors would have to be read on the device.
            auto given = [&](std::string_view slot) {
                auto* sl = op.input(slot);
                return sl && !sl->vars.empty();
            };
            if (given("SizeTensor") || given("OutSize") || given("Scale"))
                return "size given by a tensor";
            return {};
        }
        if (op_declares<ops::concat>(t)) {
            auto* axis = op.input("AxisTensor");
            return axis && !axis->vars.empty() ? "axis given by a tensor" : "";
        }
        return "op type " + t;
    }

    std::string precheck(const graph::graph& block) const override {
        // Conversion refuses what the kernels have no code for (no shapes needed).
        for (auto& op : block.ops) {
            int code = 0;
            float p[3];
            std::string act;
            if (op_declares<fused_conv_op>(op.type)) act = fusion::chain_activation(op.attrs);
            if (is_activation_type(op.type)) act = op.type;
            if (!activation_of(act, op.attrs, code, p))
                return "op " + op.type + ": the OpenCL kernels have no activation '" + act + "'";
        }
        return {};
    }

    std::unique_ptr<subgraph_engine> make_engine() const override {
        return std::make_unique<engine>();
    }
};

}  // namespace litegraph::backends::opencl
