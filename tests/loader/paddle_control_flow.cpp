// Control flow in protobuf programs (loader/paddle/program_desc.hpp): the
// blocks of conditional_block and while, and select_input, as Paddle 2.x
// writes them (dy2static's if / else and loops), become the runtime's `if`
// and `while`; each program here is checked against the same computation
// done by hand.
#include <cmath>
#include <functional>

#include "fuzz/op_seeds.hpp"
#include "litegraph/runtime/program.hpp"
#include "loader/paddle_support.hpp"

using namespace litegraph;

namespace loader_paddle_control_flow_test {

namespace {

using google::protobuf::Message;
using slots = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// A ProgramDesc written block by block through the schema, as Paddle lays
/// it out: feed and fetch lists, tensors per block, BLOCK attributes.
class program_desc {
public:
    program_desc() : program_(paddle::schema::get().make(paddle::schema::get().program)) {
        using namespace paddle::detail;
        set_i64(mut_msg(*program_, "version"), "version", 0);
        block(-1);
        add_var(*blocks_[0], "feed", paddle::var_type::FEED_MINIBATCH, true);
        add_var(*blocks_[0], "fetch", paddle::var_type::FETCH_LIST, true);
    }

    /// A new block under `parent`; returns its index.
    int block(int parent) {
        using namespace paddle::detail;
        auto& b = add_msg(*program_, "blocks");
        const int idx = static_cast<int>(blocks_.size());
        set_i32(b, "idx", idx);
        set_i32(b, "parent_idx", parent);
        blocks_.clear();  // add_msg may move the earlier blocks
        for (int i = 0; i <= idx; ++i)
            blocks_.push_back(program_->GetReflection()->MutableRepeatedMessage(
                program_.get(), field(*program_, "blocks"), i));
        return idx;
    }

    void tensor(int blk, const std::string& name, dtype t, const shape_t& dims) {
        using namespace paddle::detail;
        auto& v = add_msg(*blocks_[static_cast<std::size_t>(blk)], "vars");
        set_str(v, "name", name);
        auto& vt = mut_msg(v, "type");
        set_enum(vt, "type", paddle::var_type::LOD_TENSOR);
        auto& td = mut_msg(mut_msg(vt, "lod_tensor"), "tensor");
        set_enum(td, "data_type", paddle::to_paddle_type(t));
        for (auto d : dims) add_i64(td, "dims", d);
        set_bool(v, "persistable", false);
    }

    /// A variable of another kind (the step scopes of control flow).
    void scopes(int blk, const std::string& name) {
        paddle::detail::add_var(*blocks_[static_cast<std::size_t>(blk)], name, 11, false);
    }
    /// A tensor array (LOD_TENSOR_ARRAY).
    void array(int blk, const std::string& name) {
        paddle::detail::add_var(*blocks_[static_cast<std::size_t>(blk)], name,
                                paddle::var_type::LOD_TENSOR_ARRAY, false);
    }

    void feed(const std::string& var, int col) {
        paddle::detail::add_io_op(*blocks_[0], "feed", "feed", var, col);
    }
    void fetch(const std::string& var, int col) {
        paddle::detail::add_io_op(*blocks_[0], "fetch", var, "fetch", col);
    }

    /// An op; `sub_block` >= 0 adds the BLOCK attribute of that name.
    Message& op(int blk, const std::string& type, const slots& in, const slots& out,
                const attr_map& attrs = {}, int sub_block = -1) {
        using namespace paddle::detail;
        auto& o = add_msg(*blocks_[static_cast<std::size_t>(blk)], "ops");
        set_str(o, "type", type);
        for (auto& [n, args] : in) add_slot(o, "inputs", n, args);
        for (auto& [n, args] : out) add_slot(o, "outputs", n, args);
        for (auto& [n, v] : attrs.all()) {
            auto& a = add_msg(o, "attrs");
            set_str(a, "name", n);
            REQUIRE(set_attr(a, v));
        }
        if (sub_block >= 0) {
            auto& a = add_msg(o, "attrs");
            set_str(a, "name", "sub_block");
            set_enum(a, "type", paddle::attr_type::BLOCK);
            set_i32(a, "block_idx", sub_block);
        }
        return o;
    }

    paddle::model load() const {
        const auto bytes = program_->SerializeAsString();
        // Fuzz seeds (tools/record-op-seeds.sh): the reader's, and the
        // program run whole by the model target.
        fuzz::op_seeds::record_topology(bytes);
        fuzz::op_seeds::record_program(bytes);
        return paddle::load_from_memory(bytes, std::string_view{});
    }

private:
    std::unique_ptr<Message> program_;
    std::vector<Message*> blocks_;
};

attr_map attrs(std::initializer_list<std::pair<const char*, attr_value>> list) {
    attr_map a;
    for (auto& [n, v] : list) a.set(n, v);
    return a;
}

/// fill_constant of one value: float32 (Paddle dtype 5), or int64 (3).
attr_map fill(float v, int dtype = 5) {
    return attrs({{"shape", std::vector<std::int64_t>{1}}, {"dtype", dtype}, {"value", v}});
}

/// dy2static's if / else: y = t > 0 ? 2 x : 1 - x, as two conditional_blocks
/// (the second on logical_not) and a select_input on cast(cond).
program_desc if_else(bool scalar_condition = true) {
    program_desc p;
    p.tensor(0, "x", dtype::f32, {3});
    p.tensor(0, "t", dtype::f32, {1});
    p.tensor(0, "zero", dtype::f32, {1});
    p.tensor(0, "cond", dtype::boolean, {1});
    p.tensor(0, "ncond", dtype::boolean, {1});
    p.tensor(0, "mask", dtype::i32, {1});
    p.tensor(0, "out_t", dtype::f32, {3});
    p.tensor(0, "out_f", dtype::f32, {3});
    p.tensor(0, "y", dtype::f32, {3});
    p.scopes(0, "scope_t");
    p.scopes(0, "scope_f");
    p.feed("x", 0);
    p.feed("t", 1);
    p.op(0, "fill_constant", {}, {{"Out", {"zero"}}}, fill(0.f));
    p.op(0, "greater_than", {{"X", {"t"}}, {"Y", {"zero"}}}, {{"Out", {"cond"}}});
    const int bt = p.block(0), bf = p.block(0);
    p.tensor(bt, "twice", dtype::f32, {3});
    p.op(bt, "scale", {{"X", {"x"}}}, {{"Out", {"twice"}}}, attrs({{"scale", 2.f}}));
    p.op(bt, "assign", {{"X", {"twice"}}}, {{"Out", {"out_t"}}});
    p.op(bf, "scale", {{"X", {"x"}}}, {{"Out", {"out_f"}}},
         attrs({{"scale", -1.f}, {"bias", 1.f}, {"bias_after_scale", true}}));
    const auto cb = attrs({{"is_scalar_condition", scalar_condition}});
    p.op(0, "conditional_block", {{"Cond", {"cond"}}, {"Input", {"x"}}},
         {{"Out", {"out_t"}}, {"Scope", {"scope_t"}}}, cb, bt);
    p.op(0, "logical_not", {{"X", {"cond"}}}, {{"Out", {"ncond"}}});
    p.op(0, "conditional_block", {{"Cond", {"ncond"}}, {"Input", {"x"}}},
         {{"Out", {"out_f"}}, {"Scope", {"scope_f"}}}, cb, bf);
    p.op(0, "cast", {{"X", {"cond"}}}, {{"Out", {"mask"}}},
         attrs({{"in_dtype", 0}, {"out_dtype", 2}}));
    p.op(0, "select_input", {{"X", {"out_f", "out_t"}}, {"Mask", {"mask"}}}, {{"Out", {"y"}}});
    p.fetch("y", 0);
    return p;
}

std::vector<float> run(paddle::model m, const std::vector<std::pair<std::string, tensor>>& in,
                       std::size_t output = 0) {
    runtime::program prog(std::move(m.graph));
    for (auto& [n, t] : in) prog.set_input(n, t);
    prog.run();
    auto o = prog.output(output).span<float>();
    return {o.begin(), o.end()};
}

/// A loop: acc = x, i = 0; while i < n: [if i < 1: acc += 10 x;] acc += x, i += 1.
program_desc loop(bool nested) {
    program_desc p;
    for (auto n : {"x", "acc"}) p.tensor(0, n, dtype::f32, {3});
    for (auto n : {"n", "i", "one"}) p.tensor(0, n, dtype::f32, {1});
    p.tensor(0, "cond", dtype::boolean, {1});
    p.scopes(0, "steps");
    p.feed("x", 0);
    p.feed("n", 1);
    p.op(0, "fill_constant", {}, {{"Out", {"i"}}}, fill(0.f));
    p.op(0, "fill_constant", {}, {{"Out", {"one"}}}, fill(1.f));
    p.op(0, "assign", {{"X", {"x"}}}, {{"Out", {"acc"}}});
    p.op(0, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
    const int body = p.block(0);
    if (nested) {
        const int first = p.block(body);
        p.tensor(body, "c2", dtype::boolean, {1});
        p.tensor(first, "x10", dtype::f32, {3});
        p.scopes(body, "scope2");
        p.op(body, "less_than", {{"X", {"i"}}, {"Y", {"one"}}}, {{"Out", {"c2"}}});
        p.op(first, "scale", {{"X", {"x"}}}, {{"Out", {"x10"}}}, attrs({{"scale", 10.f}}));
        p.op(first, "elementwise_add", {{"X", {"acc"}}, {"Y", {"x10"}}}, {{"Out", {"acc"}}},
             attrs({{"axis", -1}}));
        p.op(body, "conditional_block", {{"Cond", {"c2"}}, {"Input", {"acc", "x"}}},
             {{"Out", {"acc"}}, {"Scope", {"scope2"}}}, attrs({{"is_scalar_condition", true}}),
             first);
    }
    p.op(body, "elementwise_add", {{"X", {"acc"}}, {"Y", {"x"}}}, {{"Out", {"acc"}}},
         attrs({{"axis", -1}}));
    p.op(body, "scale", {{"X", {"i"}}}, {{"Out", {"i"}}},
         attrs({{"scale", 1.f}, {"bias", 1.f}, {"bias_after_scale", true}}));
    p.op(body, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
    // Out also names x, which the body only reads: a loop value it yields unchanged.
    p.op(0, "while", {{"X", {"acc", "i", "n", "x", "one"}}, {"Condition", {"cond"}}},
         {{"Out", {"acc", "i", "cond", "x"}}, {"StepScopes", {"steps"}}},
         attrs({{"is_test", true}}), body);
    p.fetch("acc", 0);
    p.fetch("i", 1);
    return p;
}

/// dy2static's list in a loop: i = 0; while i < n: arr.append(x * i), i += 1;
/// then len(arr), arr[1] and paddle.stack(arr) (or concat along `axis`),
/// as write_to_array, lod_array_length, read_from_array and
/// tensor_array_to_tensor.
program_desc collect(bool stack, std::int64_t axis) {
    program_desc p;
    p.tensor(0, "x", dtype::f32, {2, 3});
    for (auto n : {"n", "i"}) p.tensor(0, n, dtype::f32, {1});
    p.tensor(0, "cond", dtype::boolean, {1});
    p.tensor(0, "len", dtype::i64, {1});
    p.tensor(0, "k", dtype::i64, {1});
    p.tensor(0, "item", dtype::f32, {2, 3});
    p.tensor(0, "out", dtype::f32, {-1, -1, -1});
    p.tensor(0, "idx", dtype::i32, {-1});
    p.array(0, "arr");
    p.scopes(0, "steps");
    p.feed("x", 0);
    p.feed("n", 1);
    p.op(0, "fill_constant", {}, {{"Out", {"i"}}}, fill(0.f));
    p.op(0, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
    const int body = p.block(0);
    p.tensor(body, "y", dtype::f32, {2, 3});
    p.tensor(body, "ii", dtype::i64, {1});
    p.op(body, "elementwise_mul", {{"X", {"x"}}, {"Y", {"i"}}}, {{"Out", {"y"}}},
         attrs({{"axis", -1}}));
    p.op(body, "cast", {{"X", {"i"}}}, {{"Out", {"ii"}}},
         attrs({{"in_dtype", 5}, {"out_dtype", 3}}));
    p.op(body, "write_to_array", {{"X", {"y"}}, {"I", {"ii"}}}, {{"Out", {"arr"}}});
    p.op(body, "scale", {{"X", {"i"}}}, {{"Out", {"i"}}},
         attrs({{"scale", 1.f}, {"bias", 1.f}, {"bias_after_scale", true}}));
    p.op(body, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
    p.op(0, "while", {{"X", {"x", "i", "n"}}, {"Condition", {"cond"}}},
         {{"Out", {"i", "cond", "arr"}}, {"StepScopes", {"steps"}}}, attrs({{"is_test", true}}),
         body);
    p.op(0, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"len"}}});
    p.op(0, "tensor_array_to_tensor", {{"X", {"arr"}}}, {{"Out", {"out"}}, {"OutIndex", {"idx"}}},
         attrs({{"axis", axis}, {"use_stack", stack}}));
    p.op(0, "fill_constant", {}, {{"Out", {"k"}}}, fill(1.f, 3));
    p.op(0, "read_from_array", {{"X", {"arr"}}, {"I", {"k"}}}, {{"Out", {"item"}}});
    p.fetch("out", 0);
    p.fetch("len", 1);
    p.fetch("item", 2);
    p.fetch("idx", 3);
    return p;
}

}  // namespace

TEST_CASE("conditional_block and select_input: dy2static's if / else runs either branch") {
    const std::vector<float> xs{1.5f, -2.f, 0.25f};
    auto x = tensor::from<float>({3}, xs);
    auto m = if_else().load();
    CHECK(m.info.num_blocks == 3);
    CHECK(m.info.op_counts.at("conditional_block") == 2);
    CHECK(m.info.op_counts.at("select_input") == 1);
    // The top graph holds `if` ops with graphs of their own, no sub-block op.
    int ifs = 0;
    for (auto& op : m.graph.ops) {
        CHECK(op.type != "conditional_block");
        CHECK(op.type != "select_input");
        ifs += op.type == "if";
    }
    CHECK(ifs == 3);
    CHECK(m.graph.sub_blocks.size() == 6);
    for (float t : {1.f, -1.f, 0.f}) {
        CAPTURE(t);
        auto y = run(if_else().load(),
                     {{"x", x}, {"t", tensor::from<float>({1}, std::vector<float>{t})}});
        REQUIRE(y.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) CHECK(y[i] == (t > 0 ? 2 * xs[i] : 1 - xs[i]));
    }
}

TEST_CASE("while: the body runs until its condition is false, loop values carried") {
    const std::vector<float> xs{1.f, -0.5f, 3.f};
    auto x = tensor::from<float>({3}, xs);
    for (bool nested : {false, true}) {
        for (float n : {3.f, 0.f, 2.5f, 1.f}) {
            CAPTURE(nested);
            CAPTURE(n);
            const float iterations = std::max(0.f, std::ceil(n));
            const float times = 1 + iterations + (nested && iterations > 0 ? 10 : 0);
            auto in = std::vector<std::pair<std::string, tensor>>{
                {"x", x}, {"n", tensor::from<float>({1}, std::vector<float>{n})}};
            auto acc = run(loop(nested).load(), in, 0);
            auto i = run(loop(nested).load(), in, 1);
            REQUIRE(acc.size() == 3);
            for (std::size_t k = 0; k < 3; ++k) CHECK(acc[k] == times * xs[k]);
            CHECK(i == std::vector<float>{iterations});
        }
    }
}

/// x fed, c = true: the start of the programs of bad blocks below.
program_desc fed_and_true() {
    program_desc p;
    p.tensor(0, "x", dtype::f32, {1});
    p.tensor(0, "c", dtype::boolean, {1});
    p.feed("x", 0);
    p.op(0, "fill_constant", {}, {{"Out", {"c"}}},
         attrs({{"shape", std::vector<std::int64_t>{1}}, {"dtype", 0}, {"value", 1.f}}));
    return p;
}

TEST_CASE("control flow errors: a block out of range or running itself is a format error") {
    {
        program_desc p = fed_and_true();
        p.op(0, "conditional_block", {{"Cond", {"c"}}}, {{"Out", {"x"}}},
             attrs({{"is_scalar_condition", true}}), 7);
        p.fetch("x", 0);
        CHECK_THROWS_WITH_AS(p.load(), doctest::Contains("names block 7 of 1"), format_error);
    }
    {
        program_desc p = fed_and_true();
        const int b = p.block(0);
        p.op(b, "conditional_block", {{"Cond", {"c"}}}, {{"Out", {"x"}}},
             attrs({{"is_scalar_condition", true}}), b);
        p.op(0, "conditional_block", {{"Cond", {"c"}}}, {{"Out", {"x"}}},
             attrs({{"is_scalar_condition", true}}), b);
        p.fetch("x", 0);
        CHECK_THROWS_WITH_AS(p.load(), doctest::Contains("runs block 1, which holds it"),
                             format_error);
    }
    {
        // 100 blocks each running the next: refused at 64 levels, not a deep recursion.
        program_desc p = fed_and_true();
        int parent = 0;
        for (int k = 0; k < 100; ++k) {
            const int b = p.block(parent);
            p.op(parent, "conditional_block", {{"Cond", {"c"}}}, {{"Out", {"x"}}},
                 attrs({{"is_scalar_condition", true}}), b);
            parent = b;
        }
        p.fetch("x", 0);
        CHECK_THROWS_WITH_AS(p.load(), doctest::Contains("nested 64 blocks deep"), format_error);
    }
}

TEST_CASE("conditional_block without a scalar condition runs when every Cond has an element") {
    // out = x; if c (of shape [n]) is not empty: out = 2 x.
    program_desc p;
    for (auto v : {"x", "out"}) p.tensor(0, v, dtype::f32, {3});
    p.tensor(0, "n", dtype::i64, {1});
    p.tensor(0, "c", dtype::f32, {-1});
    p.scopes(0, "scope");
    p.feed("x", 0);
    p.feed("n", 1);
    p.op(0, "fill_constant", {{"ShapeTensor", {"n"}}}, {{"Out", {"c"}}},
         attrs({{"dtype", 5}, {"value", 1.f}}));
    p.op(0, "assign", {{"X", {"x"}}}, {{"Out", {"out"}}});
    const int b = p.block(0);
    p.op(b, "scale", {{"X", {"x"}}}, {{"Out", {"out"}}}, attrs({{"scale", 2.f}}));
    p.op(0, "conditional_block", {{"Cond", {"c"}}, {"Input", {"x"}}},
         {{"Out", {"out"}}, {"Scope", {"scope"}}}, attrs({{"is_scalar_condition", false}}), b);
    p.fetch("out", 0);
    const std::vector<float> xs{1.f, -2.f, 0.5f};
    for (std::int64_t n : {0, 2}) {
        CAPTURE(n);
        auto y =
            run(p.load(), {{"x", tensor::from<float>({3}, xs)},
                           {"n", tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{n})}});
        REQUIRE(y.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) CHECK(y[i] == (n ? 2 : 1) * xs[i]);
    }
    // The if / else program with non-scalar conditions: both blocks run
    // (each condition has its one element), select_input still picks.
    for (float t : {1.f, -1.f}) {
        auto y =
            run(if_else(false).load(), {{"x", tensor::from<float>({3}, xs)},
                                        {"t", tensor::from<float>({1}, std::vector<float>{t})}});
        for (std::size_t i = 0; i < 3; ++i) CHECK(y[i] == (t > 0 ? 2 * xs[i] : 1 - xs[i]));
    }
}

TEST_CASE("select_output writes X into the output its mask names, the other keeps its value") {
    // a = -x; select_output(2 x, mask) -> [a, b]; y = a + 0 (a as before when mask is 1).
    program_desc p;
    for (auto v : {"x", "x2", "a", "b"}) p.tensor(0, v, dtype::f32, {3});
    p.tensor(0, "m", dtype::i32, {1});
    p.feed("x", 0);
    p.feed("m", 1);
    p.op(0, "scale", {{"X", {"x"}}}, {{"Out", {"a"}}}, attrs({{"scale", -1.f}}));
    p.op(0, "scale", {{"X", {"x"}}}, {{"Out", {"x2"}}}, attrs({{"scale", 2.f}}));
    p.op(0, "select_output", {{"X", {"x2"}}, {"Mask", {"m"}}}, {{"Out", {"a", "b"}}});
    p.fetch("a", 0);
    p.fetch("b", 1);
    const std::vector<float> xs{1.f, -2.f, 0.5f};
    for (std::int32_t m : {0, 1}) {
        CAPTURE(m);
        std::vector<std::pair<std::string, tensor>> in{
            {"x", tensor::from<float>({3}, xs)},
            {"m", tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{m})}};
        auto a = run(p.load(), in, 0);
        REQUIRE(a.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) CHECK(a[i] == (m ? -xs[i] : 2 * xs[i]));
        auto b = run(p.load(), in, 1);
        if (m) {
            REQUIRE(b.size() == 3);
            for (std::size_t i = 0; i < 3; ++i) CHECK(b[i] == 2 * xs[i]);
        } else {
            CHECK(b.empty());  // never written: the empty value
        }
    }
}

TEST_CASE("tensor arrays: a loop appends, then length, read and stack / concat as by hand") {
    const std::vector<float> xs{1.f, -2.f, 0.5f, 3.f, 0.25f, -1.f};
    for (auto [stack, axis] : {std::pair{true, std::int64_t{0}}, std::pair{true, std::int64_t{-1}},
                               std::pair{false, std::int64_t{1}}}) {
        const bool stacked = stack;
        const std::int64_t ax = axis;
        CAPTURE(stacked);
        CAPTURE(ax);
        auto m = collect(stacked, ax).load();
        CHECK(m.info.op_counts.at("write_to_array") == 1);
        runtime::program prog(std::move(m.graph));
        // One program, runs of growing and shrinking length: the join is
        // planned for one item and outgrows it; each run starts empty.
        for (std::int64_t n : {3, 5, 2, 4}) {
            CAPTURE(n);
            prog.set_input("x", tensor::from<float>({2, 3}, xs));
            prog.set_input("n", tensor::from<float>({1}, std::vector<float>{float(n)}));
            prog.run();
            CHECK(prog.output(1).span<std::int64_t>()[0] == n);
            const auto out = prog.output(0);
            const auto idx = prog.output(3).span<std::int32_t>();
            REQUIRE(idx.size() == static_cast<std::size_t>(n));
            for (auto v : idx) CHECK(v == (stacked ? 1 : 3));
            // out[.] as stack / concat of x * j by plain loops.
            shape_t want =
                stacked ? (ax == 0 ? shape_t{n, 2, 3} : shape_t{2, 3, n}) : shape_t{2, 3 * n};
            REQUIRE(out.shape == want);
            const auto o = out.span<float>();
            for (std::int64_t j = 0; j < n; ++j)
                for (std::int64_t r = 0; r < 2; ++r)
                    for (std::int64_t c = 0; c < 3; ++c) {
                        const float v = xs[static_cast<std::size_t>(r * 3 + c)] * float(j);
                        const std::int64_t at =
                            stacked ? (ax == 0 ? (j * 2 + r) * 3 + c : (r * 3 + c) * n + j)
                                    : r * 3 * n + j * 3 + c;
                        CHECK(o[static_cast<std::size_t>(at)] == v);
                    }
            const auto item = prog.output(2).span<float>();  // arr[1] = x * 1
            REQUIRE(item.size() == 6);
            for (std::size_t e = 0; e < 6; ++e) CHECK(item[e] == xs[e]);
        }
        // A join outgrowing its plan takes a buffer of its own within
        // max_arena_bytes, with the arena and the arrays' items.
        runtime::program_limits l;
        l.max_arena_bytes = prog.memory().arena_bytes + 3 * 24;  // 3 items, no room for a join
        prog.set_limits(l);
        prog.set_input("n", tensor::from<float>({1}, std::vector<float>{3.f}));
        CHECK_THROWS_WITH_AS(prog.run(), doctest::Contains("max_arena_bytes"), shape_error);
        prog.set_limits({});
        prog.run();
        CHECK(prog.output(1).span<std::int64_t>()[0] == 3);
        // Nothing appended: reading item 1 and joining are errors naming the array.
        prog.set_input("n", tensor::from<float>({1}, std::vector<float>{0.f}));
        CHECK_THROWS_WITH_AS(prog.run(), doctest::Contains("tensor array 'arr"), shape_error);
    }
}

TEST_CASE("tensor arrays are values: a read before a later write keeps what it read") {
    // arr[0] = x; a = len(arr); arr[2] = 2 x; b = len(arr); first = arr[0].
    program_desc p;
    p.tensor(0, "x", dtype::f32, {3});
    p.tensor(0, "x2", dtype::f32, {3});
    p.tensor(0, "first", dtype::f32, {3});
    p.tensor(0, "gap", dtype::f32, {3});
    for (auto n : {"i0", "i1", "i2", "a", "b"}) p.tensor(0, n, dtype::i64, {1});
    p.array(0, "arr");
    p.feed("x", 0);
    auto index = [&](const char* n, float v) {
        p.op(0, "fill_constant", {}, {{"Out", {n}}}, fill(v, 3));
    };
    index("i0", 0.f);
    index("i1", 1.f);
    index("i2", 2.f);
    p.op(0, "write_to_array", {{"X", {"x"}}, {"I", {"i0"}}}, {{"Out", {"arr"}}});
    p.op(0, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"a"}}});
    p.op(0, "scale", {{"X", {"x"}}}, {{"Out", {"x2"}}}, attrs({{"scale", 2.f}}));
    p.op(0, "write_to_array", {{"X", {"x2"}}, {"I", {"i2"}}}, {{"Out", {"arr"}}});
    p.op(0, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"b"}}});
    p.op(0, "read_from_array", {{"X", {"arr"}}, {"I", {"i0"}}}, {{"Out", {"first"}}});
    p.fetch("a", 0);
    p.fetch("b", 1);
    p.fetch("first", 2);
    const std::vector<float> xs{1.f, -2.f, 0.5f};
    runtime::program prog(p.load().graph);
    prog.set_input("x", tensor::from<float>({3}, xs));
    for (int run = 0; run < 2; ++run) {  // the second run starts from no arrays again
        prog.run();
        CHECK(prog.output(0).span<std::int64_t>()[0] == 1);
        CHECK(prog.output(1).span<std::int64_t>()[0] == 3);  // grown to index 2
        const auto f = prog.output(2).span<float>();
        CHECK(std::vector<float>(f.begin(), f.end()) == xs);
    }
    // Item 1 was never written: reading it is an error.
    p.op(0, "read_from_array", {{"X", {"arr"}}, {"I", {"i1"}}}, {{"Out", {"gap"}}});
    p.fetch("gap", 3);
    runtime::program bad(p.load().graph);
    bad.set_input("x", tensor::from<float>({3}, xs));
    CHECK_THROWS_WITH_AS(bad.run(), doctest::Contains("item 1 of tensor array 'arr"), shape_error);
}

TEST_CASE("tensor arrays written from constants are written at each run, never folded") {
    // arr[0] = fill 3; y = x + arr[0]: every input of the write is known at
    // prepare, and each run starts with no arrays.
    program_desc p;
    for (auto n : {"x", "c", "item", "y"}) p.tensor(0, n, dtype::f32, {1});
    p.tensor(0, "i0", dtype::i64, {1});
    p.array(0, "arr");
    p.feed("x", 0);
    p.op(0, "fill_constant", {}, {{"Out", {"c"}}}, fill(3.f));
    p.op(0, "fill_constant", {}, {{"Out", {"i0"}}}, fill(0.f, 3));
    p.op(0, "write_to_array", {{"X", {"c"}}, {"I", {"i0"}}}, {{"Out", {"arr"}}});
    p.op(0, "read_from_array", {{"X", {"arr"}}, {"I", {"i0"}}}, {{"Out", {"item"}}});
    p.op(0, "elementwise_add", {{"X", {"x"}}, {"Y", {"item"}}}, {{"Out", {"y"}}},
         attrs({{"axis", -1}}));
    p.fetch("y", 0);
    runtime::program prog(p.load().graph);
    for (float x : {1.f, -4.f}) {
        prog.set_input("x", tensor::from<float>({1}, std::vector<float>{x}));
        prog.run();
        CHECK(prog.output(0).span<float>()[0] == x + 3.f);
    }
    // An index past program_limits::max_array_items is an error, not an
    // allocation; so are items beyond what max_arena_bytes leaves the arrays.
    runtime::program_limits l;
    l.max_array_items = 0;
    prog.set_limits(l);
    CHECK_THROWS_WITH_AS(prog.run(), doctest::Contains("max_array_items"), shape_error);
    l = {};
    prog.set_limits(l);
    prog.run();
    l.max_arena_bytes = prog.memory().arena_bytes + 3;  // the item is 4 bytes
    prog.set_limits(l);
    CHECK_THROWS_WITH_AS(prog.run(), doctest::Contains("max_arena_bytes less the arena"),
                         shape_error);
    l.max_arena_bytes += 1;
    prog.set_limits(l);
    prog.run();
    CHECK(prog.output(0).span<float>()[0] == -1.f);
}

}  // namespace loader_paddle_control_flow_test
