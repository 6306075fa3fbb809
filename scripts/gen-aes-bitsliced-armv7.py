#!/usr/bin/env python3
"""Writes src/crypto/backend/arm/aes_bitsliced_armv7.S: bit-sliced AES-CTR for AArch32 NEON.

Why generated assembly: the cipher is ~200 straight-line vector operations per round over eight
planes, and the S-box circuit keeps more values live than NEON's sixteen q registers hold. GCC
spilled them as pairs of 64-bit VSTR/VLDR, and on a Cortex-A7 that was 80 of the ~300
instructions of each round. Here a small register allocator does it instead: the circuit comes
from the C++ (sub_bytes in backend/portable/aes_bitsliced.cc, parsed, so the two cannot
drift), operations are ordered to keep few values live (a list scheduler, then --anneal's local
search, whose orders are stored in ORDERS), registers are taken by Belady's rule, and the
values that must leave the registers go to stack slots with one VST1/VLD1 each, through core
registers that point at them. The file holds whole CTR batches: counter blocks, the bit
transposition, the rounds, the transposition back and the XOR into the data.

It also changes the byte order inside the planes. aes_bitsliced.cc keeps AES's column-major
order; here, between the first and the last round, the planes are row-major (byte 4r + c is
row r, column c), which makes MixColumns' row rotations single VEXTs instead of shift-and-insert
pairs. The first round's ShiftRows enters that order and the last one's leaves it (one table
lookup per plane, as ShiftRows always costs), so the change is free.

    scripts/gen-aes-bitsliced-armv7.py             # rewrite the .S file
    scripts/gen-aes-bitsliced-armv7.py --check     # exit 1 if the .S file is not what this writes
    scripts/gen-aes-bitsliced-armv7.py --search N  # the list scheduler's best of N seeds
    scripts/gen-aes-bitsliced-armv7.py --anneal N  # N local-search steps; rewrites ORDERS
"""
import argparse
import json
import math
import pathlib
import random
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src/crypto/backend/portable/aes_bitsliced.cc"
OUTPUT = ROOT / "src/crypto/backend/arm/aes_bitsliced_armv7.S"
# The operation orders --anneal found, as indices into each segment's program (data, so that
# generating stays fast; a circuit change makes them stale and the seeds' orders take over).
ORDERS = ROOT / "scripts/gen-aes-bitsliced-armv7.orders.json"

NUM_QREGS = 16
# Core registers free to point at spill slots during the rounds (r1 round keys, r2 rounds left,
# r3 the ShiftRows table; in, out, the batch count and the state wait on the stack; r4-r11, ip
# and lr are saved or scratch). Slot 0 is sp itself.
SLOT_POINTERS = ["r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "ip", "lr"]


# --- The S-box circuit, read from the C++ -------------------------------------------------------


def sbox_circuit():
    """(inputs, gates, outputs): inputs maps u_j to its plane, gates are (out, op, a, b), outputs
    maps a plane to the gate whose value it takes."""
    text = SOURCE.read_text()
    body = re.search(r"inline void sub_bytes\(V8\* b\) noexcept \{(.*?)\n\}", text, re.S)
    if body is None:
        sys.exit(f"sub_bytes not found in {SOURCE}")
    body = body.group(1)
    inputs = {name: int(plane) for name, plane in re.findall(r"(u\d) = b\[(\d)\]", body)}
    gates = [(out, op, a, b) for out, a, op, b in re.findall(r"(\w+) = (\w+) ([&^]) (\w+)", body)]
    outputs = {int(plane): name for plane, name in re.findall(r"b\[(\d)\] = (\w+);", body)}
    if len(inputs) != 8 or len(outputs) != 8 or len(gates) < 100:
        sys.exit(f"unexpected sub_bytes shape in {SOURCE}")
    return inputs, gates, outputs


# --- Programs: SSA operations over named values -------------------------------------------------


class Program:
    """Straight-line SSA code. Operation kinds:
      xor, and      out = a op b
      ext           out = VEXT(a, a, imm): rotate the 16 bytes down by imm
      tbl           out = VTBL(a, index) (out must differ from a and index)
      ark2          out, out' = a ^ next round-key plane, b ^ the one after: both planes loaded by
                    one VLD1 into a register pair (so the outs differ from a and b)
      index         out = the ShiftRows table at label imm (re-loadable, never spilled)
    """

    def __init__(self):
        self.ops = []
        self.count = 0

    def new(self, hint):
        self.count += 1
        return f"{hint}.{self.count}"

    def emit(self, kind, ins, imm=None, hint="v"):
        out = self.new(hint)
        self.ops.append((kind, (out,), tuple(ins), imm))
        return out

    def emit2(self, kind, ins, hints):
        outs = tuple(self.new(h) for h in hints)
        self.ops.append((kind, outs, tuple(ins), None))
        return outs


def sub_bytes(p, planes):
    inputs, gates, outputs = sbox_circuit()
    env = {name: planes[plane] for name, plane in inputs.items()}
    for out, op, a, b in gates:
        env[out] = p.emit("xor" if op == "^" else "and", (env[a], env[b]), hint=out)
    return [env[outputs[i]] for i in range(8)]


def shuffle(p, planes, table):
    index = p.emit("index", (), imm=table, hint="idx")
    return [p.emit("tbl", (x, index), hint=f"sr{i}") for i, x in enumerate(planes)]


def mix_columns(p, b):
    """Row-major MixColumns: out_i = rot1(b_i) ^ rot2(t_i) ^ t_(i-1) (^ t_7 for i in 1, 3, 4),
    with t_i = b_i ^ rot1(b_i) and t_(-1) = t_7 (doubling in GF(2^8), as in the C++)."""
    r7 = p.emit("ext", (b[7],), imm=4, hint="r7")
    t7 = p.emit("xor", (b[7], r7), hint="t7")
    out = [None] * 8
    previous = t7
    for i in range(7):
        r = p.emit("ext", (b[i],), imm=4, hint=f"r{i}")
        t = p.emit("xor", (b[i], r), hint=f"t{i}")
        u = p.emit("ext", (t,), imm=8, hint=f"u{i}")
        o = p.emit("xor", (r, u), hint=f"o{i}")
        o = p.emit("xor", (o, previous), hint=f"o{i}")
        if i in (1, 3, 4):
            o = p.emit("xor", (o, t7), hint=f"o{i}")
        out[i] = o
        previous = t
    u7 = p.emit("ext", (t7,), imm=8, hint="u7")
    o7 = p.emit("xor", (r7, u7), hint="o7")
    out[7] = p.emit("xor", (o7, previous), hint="o7")
    return out


def add_round_key(p, planes):
    out = []
    for i in range(0, 8, 2):
        out += p.emit2("ark2", (planes[i], planes[i + 1]), (f"k{i}", f"k{i + 1}"))
    return out


def first_segment():
    """Round key 0, then round 1, whose ShiftRows also takes the planes from column-major to
    row-major byte order."""
    p = Program()
    planes = [f"in{i}" for i in range(8)]
    b = shuffle(p, sub_bytes(p, add_round_key(p, planes)), ".Lshift_rows_to_row_major")
    return p, planes, add_round_key(p, mix_columns(p, b))


def middle_round():
    p = Program()
    planes = [f"in{i}" for i in range(8)]
    b = shuffle(p, sub_bytes(p, planes), ".Lshift_rows")
    return p, planes, add_round_key(p, mix_columns(p, b))


def last_round():
    """SubBytes, ShiftRows and the way back to column-major in one lookup, the last round key."""
    p = Program()
    planes = [f"in{i}" for i in range(8)]
    b = shuffle(p, sub_bytes(p, planes), ".Lshift_rows_to_column_major")
    return p, planes, add_round_key(p, b)


# --- Ordering: a list scheduler that keeps few values live --------------------------------------


def schedule(ops, outputs, rng=None):
    """Reorders ops: among those whose inputs are ready, take the one that frees the most
    registers (inputs at their last use) for the one it takes; ties go to program order. The
    round-key loads keep their order (they walk the key pointer), as do table loads."""
    producer = {out: n for n, op in enumerate(ops) for out in op[1]}
    remaining_uses = {}
    for op in ops:
        for x in op[2]:
            remaining_uses[x] = remaining_uses.get(x, 0) + 1
    for x in outputs:
        remaining_uses[x] = remaining_uses.get(x, 0) + 1
    done = set()
    order = []
    ark_positions = [n for n, op in enumerate(ops) if op[0] == "ark2"]
    pending = set(range(len(ops)))
    while pending:
        best = None
        for n in sorted(pending):
            kind, out, ins, _ = ops[n]
            if any(x in producer and producer[x] not in done for x in ins):
                continue
            if kind == "ark2" and ark_positions[len([a for a in done if ops[a][0] == "ark2"])] != n:
                continue
            freed = sum(1 for x in set(ins) if remaining_uses[x] == ins.count(x))
            score = freed - len(ops[n][1]) + (rng.random() * 1.5 if rng else 0)
            if kind == "index":
                score = -2  # load the table only when nothing better is ready
            if best is None or score > best[0]:
                best = (score, n)
        _, n = best
        pending.remove(n)
        done.add(n)
        order.append(ops[n])
        for x in ops[n][2]:
            remaining_uses[x] -= 1
    return order


# --- Register allocation and emission -----------------------------------------------------------


def d_pair(q):
    return f"{{d{2 * q}, d{2 * q + 1}}}"


class Allocator:
    def __init__(self, ops, entry, exits):
        self.ops = ops
        self.exits = exits  # value -> q register it must end in
        self.reg = dict(entry)  # value -> q register
        self.slot = {}  # value -> spill slot
        self.free_regs = [q for q in range(NUM_QREGS) if q not in entry.values()]
        self.free_slots = list(range(64))
        self.lines = []
        self.spills = self.reloads = self.moves = 0
        self.max_slot = -1
        self.uses = {}
        for n, (_, _, ins, _) in enumerate(ops):
            for x in ins:
                self.uses.setdefault(x, []).append(n)
        self.index_label = {op[1][0]: op[3] for op in ops if op[0] == "index"}

    def next_use(self, value, now):
        for n in self.uses.get(value, []):
            if n >= now:
                return n
        return len(self.ops) if value in self.exits else None

    def slot_address(self, slot):
        """The register a slot's VST1/VLD1 goes through: sp for slot 0, then the slot
        pointers; None past them (two VSTR/VLDR of the halves then, addressed from sp)."""
        self.max_slot = max(self.max_slot, slot)
        if slot == 0:
            return "sp"
        return SLOT_POINTERS[slot - 1] if slot <= len(SLOT_POINTERS) else None

    def store(self, value):
        if value in self.slot or value in self.index_label:
            return  # already in memory: a spill slot, or the table itself
        slot = self.free_slots.pop(0)
        self.slot[value] = slot
        self.slot_access("st", self.reg[value], slot)
        self.spills += 1

    def take_register(self, now, keep, prefer=None):
        if prefer is not None and prefer in self.free_regs:
            self.free_regs.remove(prefer)
            return prefer
        if self.free_regs:
            wanted = set(self.exits.values())
            # A register some exit value must end in is handed out last.
            choice = min(self.free_regs, key=lambda q: (q in wanted, q))
            self.free_regs.remove(choice)
            return choice
        victims = [v for v in self.reg if v not in keep]
        victim = max(victims, key=lambda v: self.next_use(v, now) or 0)
        self.store(victim)
        return self.reg.pop(victim)

    def take_pair(self, now, keep, prefer=None):
        """Two consecutive q registers (one VLD1 of four d registers fills them): the preferred
        pair if it is free, else the free pair, else the pair whose eviction costs least."""
        def cost(n):
            holders = [v for v in self.reg if self.reg[v] in (n, n + 1)]
            if any(v in keep for v in holders):
                return None
            stores = sum(1 for v in holders if v not in self.slot and v not in self.index_label)
            soonest = min((self.next_use(v, now) or 0 for v in holders), default=1 << 20)
            return (stores, -soonest, n != prefer, n)
        candidates = [(cost(n), n) for n in range(NUM_QREGS - 1)]
        _, n = min((c, n) for c, n in candidates if c is not None)
        for v in [v for v in self.reg if self.reg[v] in (n, n + 1)]:
            self.store(v)
            del self.reg[v]
        for q in (n, n + 1):
            if q in self.free_regs:
                self.free_regs.remove(q)
        return n

    def load(self, value, now, keep):
        q = self.take_register(now, keep)
        if value in self.index_label:
            self.lines.append(f"vld1.64 {d_pair(q)}, [r3:128]")
        else:
            self.reload_into(q, self.slot[value])
        self.reg[value] = q

    def reload_into(self, q, slot):
        self.slot_access("ld", q, slot)
        self.reloads += 1

    def slot_access(self, direction, q, slot):
        """One VST1/VLD1 ("st"/"ld") of q through the slot's pointer, or VSTR/VLDR of its
        halves from sp where the slot has none."""
        pointer = self.slot_address(slot)
        if pointer is None:
            self.lines.append(f"v{direction}r d{2 * q}, [sp, #{16 * slot}]")
            self.lines.append(f"v{direction}r d{2 * q + 1}, [sp, #{16 * slot + 8}]")
        else:
            self.lines.append(f"v{direction}1.64 {d_pair(q)}, [{pointer}]")

    def release_if_dead(self, value, now):
        if self.next_use(value, now + 1) is None:
            if value in self.reg:
                self.free_regs.append(self.reg.pop(value))
            if value in self.slot:
                self.free_slots.append(self.slot.pop(value))
                self.free_slots.sort()

    def run(self):
        for n, (kind, outs, ins, imm) in enumerate(self.ops):
            keep = set(ins)
            for x in ins:
                if x not in self.reg and kind != "index":
                    self.load(x, n, keep)
            in_regs = [self.reg[x] for x in ins]
            prefer = self.exits.get(outs[0])
            if kind == "ark2":
                q = self.take_pair(n, keep, prefer)
            elif kind in ("tbl", "index"):
                q = self.take_register(n, keep, prefer)
            else:  # the output may take the register of an input read for the last time
                for x in set(ins):
                    self.release_if_dead(x, n)
                q = self.take_register(n, keep, prefer)
            for k, out in enumerate(outs):
                self.reg[out] = q + k
            self.emit(kind, q, in_regs, imm)
            for x in set(ins):
                self.release_if_dead(x, n)
            for out in outs:
                if self.next_use(out, n + 1) is None:
                    self.release_if_dead(out, n)
        self.settle_exits()
        return self.lines

    def emit(self, kind, q, ins, imm):
        d = lambda r: f"q{r}"
        if kind == "xor":
            self.lines.append(f"veor {d(q)}, {d(ins[0])}, {d(ins[1])}")
        elif kind == "and":
            self.lines.append(f"vand {d(q)}, {d(ins[0])}, {d(ins[1])}")
        elif kind == "ext":
            self.lines.append(f"vext.8 {d(q)}, {d(ins[0])}, {d(ins[0])}, #{imm}")
        elif kind == "tbl":
            a, index = ins
            table = f"{{d{2 * a}, d{2 * a + 1}}}"
            self.lines.append(f"vtbl.8 d{2 * q}, {table}, d{2 * index}")
            self.lines.append(f"vtbl.8 d{2 * q + 1}, {table}, d{2 * index + 1}")
        elif kind == "ark2":
            self.lines.append(f"vld1.64 {{d{2 * q}-d{2 * q + 3}}}, [r1:64]!")
            self.lines.append(f"veor {d(q)}, {d(q)}, {d(ins[0])}")
            self.lines.append(f"veor {d(q + 1)}, {d(q + 1)}, {d(ins[1])}")
        elif kind == "index":  # r3 points at the segment's table (set before the segment)
            self.lines.append(f"vld1.64 {d_pair(q)}, [r3:128]")
        else:
            raise ValueError(kind)

    def settle_exits(self):
        """Moves every exit value into its register: plain moves first, VSWP for cycles,
        reloads from spill slots last."""
        want = {v: q for v, q in self.exits.items() if self.reg.get(v) != q}
        while want:
            occupied = {self.reg[v]: v for v in self.reg}
            progress = False
            for v, q in list(want.items()):
                if v not in self.reg:
                    continue
                if q not in occupied or occupied[q] not in self.exits:
                    self.lines.append(f"vmov q{q}, q{self.reg[v]}")
                    self.moves += 1
                    if q in occupied:
                        del self.reg[occupied[q]]
                    self.reg[v] = q
                    del want[v]
                    progress = True
                    break
            if progress:
                continue
            in_regs = [v for v in want if v in self.reg]
            if in_regs:
                v = in_regs[0]
                q = want[v]
                other = occupied[q]
                self.lines.append(f"vswp q{q}, q{self.reg[v]}")
                self.moves += 1
                self.reg[other] = self.reg[v]
                self.reg[v] = q
                del want[v]
                continue
            for v, q in list(want.items()):
                self.reload_into(q, self.slot[v])
                del want[v]



# --- The assembly file --------------------------------------------------------------------------

# The list scheduler's random tie-breaks that gave the fewest instructions (--search N finds
# them); --anneal starts from their orders, and they are the fallback when ORDERS is stale.
SEEDS = {"first_segment": 322, "middle_round": 97, "last_round": 704}


def allocate_order(ops, planes, outs):
    a = Allocator(ops, {x: i for i, x in enumerate(planes)}, {x: i for i, x in enumerate(outs)})
    return a.run(), a


def allocate(builder, seed):
    """The segment's code: the order stored in ORDERS if it fits today's program, else the list
    scheduler's with the seed's tie-breaks."""
    p, planes, outs = builder()
    stored = load_orders().get(builder.__name__)
    if stored is not None and sorted(stored) == list(range(len(p.ops))) and \
            is_valid_order([p.ops[n] for n in stored], planes):
        return allocate_order([p.ops[n] for n in stored], planes, outs)
    return allocate_order(schedule(p.ops, outs, random.Random(seed)), planes, outs)


def load_orders():
    return json.loads(ORDERS.read_text()) if ORDERS.exists() else {}


def is_valid_order(ops, planes):
    """Every input defined before use, and the key-pair loads in key order."""
    defined = set(planes)
    arks = [op[1] for op in ops if op[0] == "ark2"]
    expected = sorted(arks, key=lambda outs: [int(o.split(".")[1]) for o in outs])
    if arks != expected:
        return False
    for _, outs, ins, _ in ops:
        if any(x not in defined for x in ins):
            return False
        defined.update(outs)
    return True


def anneal(builder, seed, iterations):
    """Local search over the segment's order from the list scheduler's: move one operation to
    another place between its inputs' definitions and its outputs' first uses, keep the move if
    the allocated code is no longer (or, early on, not much longer). Returns the best order as
    indices into the program, and its length."""
    p, planes, outs = builder()
    index = {op[1]: n for n, op in enumerate(p.ops)}
    order = schedule(p.ops, outs, random.Random(seed))
    rng = random.Random(seed)
    cost = len(allocate_order(order, planes, outs)[0])
    best = (cost, list(order))
    for step in range(iterations):
        temperature = 0.7 * (1 - step / iterations)
        i = rng.randrange(len(order))
        op = order[i]
        if op[0] in ("ark2", "index"):
            continue
        position = {o: k for k, x in enumerate(order) for o in x[1]}
        lo = max([position[x] + 1 for x in op[2] if x in position] + [0])
        hi = min([k for k, x in enumerate(order) if set(op[1]) & set(x[2])] + [len(order)])
        # With op taken out, the later ops move down one: its new index t may be lo .. hi - 1.
        t = rng.randrange(lo, hi)
        if t == i:
            continue
        moved = order[:i] + order[i + 1:]
        moved.insert(t, op)
        c = len(allocate_order(moved, planes, outs)[0])
        if c <= cost or (temperature > 0 and rng.random() < math.exp((cost - c) / temperature)):
            order, cost = moved, c
            if c < best[0]:
                best = (c, list(order))
    return [index[op[1]] for op in best[1]], best[0]


def table_bytes(position):
    """A VTBL index vector: output byte p takes input byte position(p)."""
    return ", ".join(str(position(p)) for p in range(16))


TABLES = {
    # ShiftRows from column-major (byte 4c + r) planes to row-major ones (byte 4r + c): output
    # byte 4r + c is row r's byte (c + r) % 4.
    ".Lshift_rows_to_row_major": lambda p: 4 * ((p % 4 + p // 4) % 4) + p // 4,
    # ShiftRows on row-major planes: row r turns left by r bytes.
    ".Lshift_rows": lambda p: 4 * (p // 4) + (p % 4 + p // 4) % 4,
    # ShiftRows, then back to column-major: output byte 4c + r is row r's byte (c + r) % 4.
    ".Lshift_rows_to_column_major": lambda p: 4 * (p % 4) + (p // 4 + p % 4) % 4,
}

HEADER = """\
@ GENERATED by scripts/gen-aes-bitsliced-armv7.py from the S-box circuit in
@ src/crypto/backend/portable/aes_bitsliced.cc; edit those, then rerun the script.
@
@ void wireseal_aes_bitsliced_ctr_armv7(const uint8_t* in, uint8_t* out, size_t batches,
@                                       BitslicedCtrState* state);
@
@ AES-CTR over batches * 128 bytes (batches >= 1; in == out allowed), eight blocks at a time
@ in bit-sliced form. state (aes_bitsliced.cc) holds the round keys' planes, the round count
@ and the counter block as four 32-bit words, most significant first; the counter advances by
@ eight blocks a batch, with a carry through all 128 bits. Every branch and every address
@ depends only on the pointers, the batch count and the round count, never on the key, the
@ counter or the data.
@
@ Per batch: counter blocks, transposition into planes (plane i = bit i of every byte, AES's
@ column-major byte order), round key 0, the middle rounds with the planes' bytes row-major
@ (byte 4r + c; their round keys are stored that way), the last round, transposition back, XOR.
@ Instructions per middle round: {middle}, {middle_mem} of them spill-slot stores and loads.
"""

STATE_KEYS, STATE_ROUNDS, STATE_COUNTER = 0, 4, 8  # BitslicedCtrState's layout


def counter_blocks():
    """Blocks counter + k into q_k (k = 0..7) with 32-bit add-with-carry chains, no branch; then
    the counter, in r4-r7 (most significant word first), advanced by eight."""
    out = [f"add r4, r3, #{STATE_COUNTER}", "ldm r4, {r4, r5, r6, r7}"]
    for k in range(8):
        words = ("r4", "r5", "r6", "r7")
        if k:
            out += [f"adds r11, r7, #{k}", "adcs r10, r6, #0", "adcs r9, r5, #0", "adc r8, r4, #0"]
            words = ("r8", "r9", "r10", "r11")
        out += [f"rev r{8 + w}, {words[w]}" for w in range(4)]
        out += [f"vmov d{2 * k}, r8, r9", f"vmov d{2 * k + 1}, r10, r11"]
    out += ["adds r7, r7, #8", "adcs r6, r6, #0", "adcs r5, r5, #0", "adc r4, r4, #0",
            f"add r8, r3, #{STATE_COUNTER}", "stm r8, {r4, r5, r6, r7}"]
    return out


def transpose():
    """The 8x8 bit transposition within every byte position between q0..q7 (blocks) and planes,
    its own inverse: swaps of bits 1, 2 and 4 places apart, as transpose() in the C++."""
    out = ["vmov.i8 q8, #0x55", "vmov.i8 q9, #0x33"]
    for n, mask, pairs in ((1, "q8", ((0, 1), (2, 3), (4, 5), (6, 7))),
                           (2, "q9", ((0, 2), (1, 3), (4, 6), (5, 7)))):
        for lo, hi in pairs:
            out += [f"vshr.u8 q11, q{lo}, #{n}", f"vshl.i8 q12, q{hi}, #{n}",
                    f"vbit q{hi}, q11, {mask}", f"vbif q{lo}, q12, {mask}"]
    for lo in range(4):  # four places: shift-and-insert does each half in one instruction
        out += [f"vmov q11, q{lo}", f"vsli.8 q{lo}, q{lo + 4}, #4", f"vsri.8 q{lo + 4}, q11, #4"]
    return out


def segment_text(name, lines):
    return [f"\t@ {name}"] + ["\t" + line for line in lines]


def generate():
    first, a_first = allocate(first_segment, SEEDS["first_segment"])
    middle, a_middle = allocate(middle_round, SEEDS["middle_round"])
    last, a_last = allocate(last_round, SEEDS["last_round"])
    slots = max(a.max_slot for a in (a_first, a_middle, a_last)) + 1
    pointers = SLOT_POINTERS[:max(0, slots - 1)]
    saved = 16 * slots  # in, out, batches, state
    frame = saved + 16
    out = HEADER.format(middle=len(middle) + 2,
                        middle_mem=a_middle.spills + a_middle.reloads).splitlines()
    out += [
        "",
        "#if defined(__arm__) && !defined(__aarch64__)",
        "\t.syntax unified",
        "\t.arch armv7-a",
        "\t.fpu neon",
        "\t.thumb",
        "\t.text",
        "",
        "\t.global wireseal_aes_bitsliced_ctr_armv7",
        "\t.hidden wireseal_aes_bitsliced_ctr_armv7",
        "\t.type wireseal_aes_bitsliced_ctr_armv7, %function",
        "\t.thumb_func",
        "\t.balign 16",
        "wireseal_aes_bitsliced_ctr_armv7:",
        "\tpush {r4-r11, lr}",
        "\tvpush {d8-d15}",
        f"\tsub sp, sp, #{frame}",
        f"\tadd ip, sp, #{saved}",
        "\tstm ip, {r0-r3}",
        ".Lbatch:",
    ]
    out += segment_text("Eight counter blocks, then planes.", counter_blocks() + transpose())
    out += [
        f"\tldr r1, [r3, #{STATE_KEYS}]",
        f"\tldr r2, [r3, #{STATE_ROUNDS}]",
        "\t@ Spill slot k is at sp + 16k; slots 1.. are reached through these registers.",
    ]
    out += [f"\tadd {r}, sp, #{16 * (k + 1)}" for k, r in enumerate(pointers)]
    out += ["\tadr r3, .Lshift_rows_to_row_major"]
    out += segment_text("Round key 0; round 1, into row-major byte order.", first)
    out += [
        "\tsub r2, r2, #2",
        "\tadr r3, .Lshift_rows",
        ".Lround:",
    ]
    out += segment_text("SubBytes, ShiftRows, MixColumns, AddRoundKey.", middle)
    out += [
        "\tsubs r2, r2, #1",
        "\tbne .Lround",
        "\tadr r3, .Lshift_rows_to_column_major",
    ]
    out += segment_text("SubBytes, ShiftRows back to column-major, the last round key.", last)
    out += segment_text("Planes back to blocks: the keystream. XOR it into the data.",
                        transpose() + [f"add ip, sp, #{saved}", "ldm ip, {r0-r3}"] +
                        [f"vld1.8 {{d{16 + 4 * k}-d{19 + 4 * k}}}, [r0]!" for k in range(4)] +
                        [f"veor q{k}, q{k}, q{8 + k}" for k in range(8)] +
                        [f"vst1.8 {{d{4 * k}-d{3 + 4 * k}}}, [r1]!" for k in range(4)] +
                        ["subs r2, r2, #1", "stm ip, {r0-r3}", "bne .Lbatch"])
    out += ["\t@ The spill slots held key-dependent state: clear them before returning.",
            "\tvmov.i8 q0, #0"]
    out += [f"\tvst1.64 {{d0, d1}}, [{'sp' if k == 0 else pointers[k - 1]}]"
            for k in range(min(slots, len(pointers) + 1))]
    out += [f"\tvstr d0, [sp, #{16 * k + h}]" for k in range(len(pointers) + 1, slots)
            for h in (0, 8)]
    out += [
        f"\tadd sp, sp, #{frame}",
        "\tvpop {d8-d15}",
        "\tpop {r4-r11, pc}",
        "\t.size wireseal_aes_bitsliced_ctr_armv7, . - wireseal_aes_bitsliced_ctr_armv7",
        "",
        "\t.balign 16",
    ]
    for label, position in TABLES.items():
        out += [f"{label}:", f"\t.byte {table_bytes(position)}"]
    out += [
        "#endif",
        "",
        '\t.section .note.GNU-stack, "", %progbits',
        "",
    ]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--search", type=int, metavar="N",
                        help="try N scheduler seeds per round and print the best")
    parser.add_argument("--anneal", type=int, metavar="N",
                        help="N steps of local search from each seed's order; store the orders")
    args = parser.parse_args()
    if args.anneal:
        orders = {}
        for builder in (first_segment, middle_round, last_round):
            orders[builder.__name__], length = anneal(builder, SEEDS[builder.__name__],
                                                      args.anneal)
            print(f"{builder.__name__}: {length} instructions", flush=True)
        ORDERS.write_text(json.dumps(orders) + "\n")
        return 0
    if args.search:
        for builder in (first_segment, middle_round, last_round):
            best = None
            for seed in range(args.search):
                lines, _ = allocate(builder, seed)
                if best is None or len(lines) < best[0]:
                    best = (len(lines), seed)
            print(f"{builder.__name__}: seed {best[1]}, {best[0]} instructions")
        return 0
    text = generate()
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run {pathlib.Path(__file__).name}")
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
