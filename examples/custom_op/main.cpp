// custom_op: an op litegraph does not have (Paddle's `logcumsumexp`), written
// the way every op of include/litegraph/ops/ is written, then run
//   1. on its own through litegraph::invoke (what an op's unit test does), and
//   2. inside a small graph (x -> logcumsumexp -> relu -> y) through the pass
//      pipeline and runtime::program, given to the program by a kernel factory,
// each output compared with a plain loop.  docs/adding-an-op.md quotes this
// file; the ctest test examples/custom_op runs it (exit 0: every check held).
// usage: custom_op
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <litegraph.hpp>

namespace example {

using namespace litegraph;

// --- the op ------------------------------------------------------------------
// logcumsumexp: log of the running sum of exp along `axis`.  `flatten` runs
// over all elements (output [numel]); `exclusive` leaves out the element itself
// (the first output is log 0 = -inf); `reverse` runs from the end.  float32,
// float64.
struct logcumsumexp {
    static constexpr std::string_view paddle_types[] = {"logcumsumexp"};
    struct params {
        std::int64_t axis = -1;
        bool flatten = false;
        bool exclusive = false;
        bool reverse = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", -1), a.get<bool>("flatten", false),
                a.get<bool>("exclusive", false), a.get<bool>("reverse", false)};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const bool floating = x.type == dtype::f32 || x.type == dtype::f64;
        io.check(floating, [&] {
            return "X of dtype " + std::string(name_of(x.type)) + " is not supported";
        });
        auto& out = io.output("Out");
        out.type = x.type;
        if (p.flatten) {
            out.shape = {x.numel()};
            return;
        }
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        ops::detail::normalize_axis(io, p.axis, rank, "axis");
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        // View X as [outer, n, inner] and run along the middle dim.
        std::int64_t outer = 1, n = x.numel(), inner = 1;
        if (!p.flatten) {
            const auto rank = static_cast<std::int64_t>(x.shape.size());
            const auto axis = ops::detail::normalize_axis(io, p.axis, rank, "axis");
            for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
            n = x.shape[axis];
            for (std::int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
        }
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                const T* in = x.as<T>();
                T* o = out.as<T>();
                for (std::int64_t a = 0; a < outer; ++a)
                    for (std::int64_t b = 0; b < inner; ++b) {
                        // The running sum as m + log(s): m the largest element so far,
                        // s the sum of exp(element - m), so that exp never overflows.
                        T m = -INFINITY, s = 0;
                        for (std::int64_t j = 0; j < n; ++j) {
                            const std::int64_t k = p.reverse ? n - 1 - j : j;
                            const std::int64_t at = (a * n + k) * inner + b;
                            const T v = in[at];  // read before the write: right even over X
                            if (p.exclusive) o[at] = m + std::log(s);
                            if (v > m) {
                                s = s * std::exp(m - v) + T(1);
                                m = v;
                            } else if (v > -INFINITY) {
                                s += std::exp(v - m);
                            }
                            if (!p.exclusive) o[at] = m + std::log(s);
                        }
                    }
            }
        });
    }
};
// --- end of the op -------------------------------------------------------------

/// The baseline: Paddle's logcumsumexp written out for float32 on [outer, n, inner].
std::vector<float> baseline(const std::vector<float>& x, std::int64_t outer, std::int64_t n,
                            std::int64_t inner, bool exclusive, bool reverse) {
    std::vector<float> y(x.size());
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t b = 0; b < inner; ++b)
            for (std::int64_t i = 0; i < n; ++i) {
                double s = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    const bool before = reverse ? j > i : j < i;
                    if (before || (!exclusive && j == i))
                        s += std::exp(double(x[(a * n + j) * inner + b]));
                }
                y[(a * n + i) * inner + b] = static_cast<float>(std::log(s));
            }
    return y;
}

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::cerr << "custom_op: FAILED: " << what << "\n";
    }
}

/// Element-wise within a relative 1e-6 (the baseline sums in another order and
/// in double); -inf (exclusive's first element) only where the baseline has it.
bool close(std::span<const float> got, const std::vector<float>& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isinf(want[i]) || std::isinf(got[i])) {
            if (got[i] != want[i]) return false;
        } else if (std::abs(got[i] - want[i]) > 1e-6f * (1.f + std::abs(want[i]))) {
            return false;
        }
    }
    return true;
}

std::vector<float> sample(std::int64_t count) {
    std::vector<float> v(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * static_cast<float>(i)) * 2.f;
    return v;
}

/// Whether running logcumsumexp on `x` with attributes `a` fails naming `message`.
bool fails_with(const attr_map& a, const tensor& x, const std::string& message) {
    try {
        invoke<op_list<logcumsumexp>>("logcumsumexp", a, named_tensors{}.add("X", x), {{"Out", 1}});
    } catch (const shape_error& e) {
        if (std::string(e.what()).find(message) != std::string::npos) return true;
        std::cerr << "custom_op: unexpected message: " << e.what() << "\n";
    }
    return false;
}

// --- 1. the op on its own ------------------------------------------------------
void run_alone() {
    const shape_t x_shape = {2, 3, 4};
    const auto xs = sample(24);
    const auto x = tensor::from<float>(x_shape, xs);
    for (std::int64_t axis : {0, 1, 2, -1})
        for (bool exclusive : {false, true})
            for (bool reverse : {false, true}) {
                attr_map a;
                a.set("axis", axis);
                a.set("exclusive", exclusive);
                a.set("reverse", reverse);
                auto r = invoke<op_list<logcumsumexp>>("logcumsumexp", a,
                                                       named_tensors{}.add("X", x), {{"Out", 1}});
                const auto ax = axis < 0 ? axis + 3 : axis;
                std::int64_t outer = 1, inner = 1;
                for (std::int64_t d = 0; d < ax; ++d) outer *= x_shape[d];
                for (std::int64_t d = ax + 1; d < 3; ++d) inner *= x_shape[d];
                const auto& out = r.get("Out");
                expect(out.shape() == x_shape &&
                           close(out.span<float>(),
                                 baseline(xs, outer, x_shape[ax], inner, exclusive, reverse)),
                       "logcumsumexp axis " + std::to_string(axis) + " exclusive " +
                           std::to_string(exclusive) + " reverse " + std::to_string(reverse));
            }
    // flatten: one run over all 24 elements, shape [24].
    attr_map flat;
    flat.set("flatten", true);
    auto r = invoke<op_list<logcumsumexp>>("logcumsumexp", flat, named_tensors{}.add("X", x),
                                           {{"Out", 1}});
    expect(r.get("Out").shape() == shape_t{24} &&
               close(r.get("Out").span<float>(), baseline(xs, 1, 24, 1, false, false)),
           "logcumsumexp flatten");
    // Large values do not overflow: log(e^1000 + e^1000) = 1000 + log 2.
    const auto huge = tensor::from<float>({2}, std::vector<float>{1000.f, 1000.f});
    auto h = invoke<op_list<logcumsumexp>>("logcumsumexp", {}, named_tensors{}.add("X", huge),
                                           {{"Out", 1}});
    expect(std::abs(h.get("Out").span<float>()[1] - (1000.f + std::log(2.f))) < 1e-3f,
           "logcumsumexp of large values");
    // Bad input is named, with the op: an axis out of range, a dtype it does not sum.
    attr_map bad_axis;
    bad_axis.set("axis", std::int64_t{3});
    expect(fails_with(bad_axis, x, "op logcumsumexp ('Out'): axis 3 is out of range for rank 3"),
           "axis 3 on a rank-3 X is refused");
    expect(fails_with({}, tensor(dtype::i32, {3}), "X of dtype int32 is not supported"),
           "an int32 X is refused");
}

// --- 2. the op in a graph ------------------------------------------------------
graph::graph tiny_graph() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 3, 4});
    b.declare("s", {-1, 3, 4});
    b.declare("y", {-1, 3, 4});
    attr_map a;
    a.set("axis", std::int64_t{1});
    b.feed("x", 0);
    b.add_op("logcumsumexp", {{"X", {"x"}}}, {{"Out", {"s"}}}, a);
    b.add_op(std::string(ops::act::relu::paddle_type), {{"X", {"s"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    return g;
}

/// Gives the program our op's kernel; nullptr leaves every other op to the
/// built-in op table.
std::unique_ptr<op_instance> make_custom(const graph::graph& g, int op) {
    const auto& node = g.ops[op];
    if (node.type == "logcumsumexp")
        return std::make_unique<op_instance_of<logcumsumexp>>(node.attrs, node.type);
    return nullptr;
}

void run_in_graph() {
    // Without the factory the program names the op it cannot run.  (Should
    // litegraph ever ship a logcumsumexp, this example needs another op: it
    // used cumsum until the library shipped that.)
    try {
        runtime::program unknown(tiny_graph());
        expect(false, "a program without the factory must refuse logcumsumexp");
    } catch (const unsupported_error& e) {
        expect(std::string(e.what()).find("unsupported op: logcumsumexp") != std::string::npos,
               std::string("the error names logcumsumexp: ") + e.what());
    }

    auto g = tiny_graph();
    passes::run_passes(g);  // what `litegraph run` does first (relu is marked in place here)
    runtime::program prog(std::move(g), {planner::segment{}}, make_custom);
    for (std::int64_t batch : {1, 2}) {  // a new batch re-infers the shapes
        const auto xs = sample(batch * 12);
        prog.set_input("x", tensor::from<float>({batch, 3, 4}, xs));
        prog.run();
        auto want = baseline(xs, batch, 3, 4, false, false);
        for (auto& v : want) v = v > 0.f ? v : 0.f;
        const auto& y = prog.output(0);
        expect(y.shape == shape_t{batch, 3, 4} && close(y.span<float>(), want),
               "relu(logcumsumexp(x, axis 1)) in a program, batch " + std::to_string(batch));
    }
}

}  // namespace example

int main() {
    try {
        example::run_alone();
        example::run_in_graph();
    } catch (const std::exception& e) {
        std::cerr << "custom_op: FAILED: " << e.what() << "\n";
        return 1;
    }
    if (example::failures) return 1;
    std::cout << "custom_op: logcumsumexp matches the plain loop, alone and in a program\n";
    return 0;
}
