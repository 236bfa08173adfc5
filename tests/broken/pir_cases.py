# Writes the pir-*.bin cases of tests/broken (PIR programs in the fuzz harness layout:
# flags byte, u32 JSON length, the JSON, then parameter records when flag bit 0 is set).
# Usage: python3 tests/broken/pir_cases.py tests/broken
import json, struct, sys
out = sys.argv[1]
def tt(dt, dims): return {"#": "0.t_dtensor", "D": [{"#": dt}, dims, "NCHW", [], 0]}
def attr(n, tag, d): return {"N": n, "AT": {"#": tag, "D": d}}
def op(name, ins, outs, attrs=None):
    return {"#": name, "A": attrs or [], "I": [{"%": i} for i in ins], "O": [{"%": i, "TT": t} for i, t in outs], "OA": []}
def param(name, id, t): return {"#": "p", "A": [0, 1, 1, name], "DA": [], "O": {"%": id, "TT": t}, "OA": [1, 0, 1], "QA": []}
def data(name, id, dims, dt="float32", tag="0.t_f32"):
    return op("1.data", [], [(id, tt(tag, dims))], [attr("name", "0.a_str", name), attr("shape", "1.a_intarray", dims), attr("dtype", "1.a_dtype", dt)])
def fetch(i, id, col=0): return op("1.fetch", [i], [(id, tt("0.t_f32", [-1]))], [attr("name", "0.a_str", "fetch_name_%d" % col), attr("col", "0.a_i32", col)])
def program(ops): return {"base_code": {"magic": "pir", "trainable": True, "version": 1}, "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": ops}]}]}}
def varint(v):
    b = b""
    while v >= 0x80: b += bytes([(v & 0x7f) | 0x80]); v >>= 7
    return b + bytes([v])
def record(dims, values):
    desc = b"\x08\x05" + b"".join(b"\x10" + varint(d) for d in dims)
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + struct.pack("<%df" % len(values), *values)
def write(name, text, params=None):
    t = text.encode() if isinstance(text, str) else text
    b = bytes([1 if params is not None else 0]) + struct.pack("<I", len(t)) + t + (params or b"")
    open(out + "/" + name, "wb").write(b)

affine = program([
    param("zeta", 1, tt("0.t_f32", [3])), param("alpha", 2, tt("0.t_f32", [4, 3])),
    data("x", 3, [-1, 4]),
    op("1.matmul", [3, 2], [(4, tt("0.t_f32", [-1, 3]))], [attr("transpose_x", "0.a_bool", False), attr("transpose_y", "0.a_bool", False)]),
    op("1.add", [4, 1], [(5, tt("0.t_f32", [-1, 3]))]),
    op("1.softmax", [5], [(6, tt("0.t_f32", [-1, 3]))], [attr("axis", "0.a_i32", -1)]),
    fetch(6, 7)])
good_params = record([4, 3], [0.1 * i for i in range(12)]) + record([3], [0.5, -0.5, 0.0])
text = json.dumps(affine, separators=(",", ":"))
write("pir-ok-affine-with-params.bin", text, good_params)
write("pir-format_error-truncated-json.bin", text[: len(text) // 2])
write("pir-format_error-not-json.bin", b"\x0a\x02\x08\x00\x12\x00", None)
bad = json.loads(text); bad["program"]["regions"][0]["blocks"][0]["ops"][3]["I"][1]["%"] = 412
write("pir-format_error-value-used-before-defined.bin", json.dumps(bad))
bad = json.loads(text); bad["program"]["regions"][0]["blocks"][0]["ops"] = {"0": 1}
write("pir-format_error-ops-not-an-array.bin", json.dumps(bad))
bad = json.loads(text); bad["program"]["regions"][0]["blocks"][0]["ops"][5]["A"][0]["AT"]["D"] = 1e300
write("pir-format_error-i32-attribute-out-of-range.bin", json.dumps(bad))
bad = json.loads(text); bad["program"]["regions"][0]["blocks"][0]["ops"][4]["O"][0]["%"] = 4
write("pir-format_error-value-defined-twice.bin", json.dumps(bad))
write("pir-format_error-nested-too-deep.bin", '{"base_code":' + "[" * 5000 + "]" * 5000 + "}")
swapped = record([3], [0.5, -0.5, 0.0]) + record([4, 3], [0.0] * 12)
write("pir-format_error-params-in-program-order.bin", text, swapped)
write("pir-format_error-params-trailing-bytes.bin", text, good_params + b"\0")
big = program([data("x", 1, [1]),
    op("1.full", [], [(2, tt("0.t_f32", [1 << 40]))], [attr("shape", "1.a_intarray", [1 << 40]), attr("value", "0.a_f64", 1.0), attr("dtype", "1.a_dtype", "float32")]),
    op("1.add", [2, 1], [(3, tt("0.t_f32", [1 << 40]))]), fetch(3, 4)])
write("pir-shape_error-full-huge-shape.bin", json.dumps(big))
i64 = lambda d: tt("0.t_i64", d)
def full(id, v): return op("1.full", [], [(id, i64([]))], [attr("shape", "1.a_intarray", []), attr("value", "0.a_f64", v), attr("dtype", "1.a_dtype", "int64")])
def branch(a, ref): return {"#": "region", "blocks": [{"#": "block", "args": [], "ops": [full(a, 2.0), op("2.yield", [ref], [])]}]}
ifop = op("1.if", [3], [(4, i64([]))]); ifop["regions"] = [branch(10, 10), branch(11, 2)]
cf = program([data("x", 1, [], "int64", "0.t_i64"), data("y", 2, [], "int64", "0.t_i64"), op("1.equal", [1, 1], [(3, tt("0.t_bool", []))]), ifop, fetch(4, 5)])
write("pir-ok-control-flow-if.bin", json.dumps(cf))
cf["program"]["regions"][0]["blocks"][0]["ops"][3]["regions"][1]["blocks"][0]["ops"][1]["I"][0]["%"] = 4
write("pir-format_error-region-reads-its-ops-result.bin", json.dumps(cf))
# A pool2d whose kernel size is not a constant: kept under its PIR name, named when run.
pool = program([data("x", 1, [1, 2, 4, 4]), data("k", 2, [2], "int64", "0.t_i64"),
    op("1.pool2d", [1, 2], [(3, tt("0.t_f32", [1, 2, -1, -1]))], [attr("pooling_type", "0.a_str", "max")]), fetch(3, 4)])
write("pir-unsupported_error-pool-kernel-not-constant.bin", json.dumps(pool))
