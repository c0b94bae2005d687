#!/bin/sh
# t3200: fstap anonymize of a recorded trace (a real application through the
# FUSE recorder on a loop-mounted ext4: names, a symlink, user xattr values,
# an ACL, command lines): no original name, command-line word or xattr value
# of more than 3 bytes is left in OUT or in `fstap export OUT`; report
# --json of OUT shows the same operation mix, sizes and sequential/random
# counts as of TRACE; prepare + replay of OUT give the same per-op counts
# and no more divergences; one key twice gives identical files, another key
# other tokens; --keep-extensions, --keep-names, --keep-comm; key files and
# usage errors.
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-replay.sh"
need_fuse
command -v setfattr >/dev/null 2>&1 || skip "setfattr is missing (apt-get install attr)"
command -v setfacl >/dev/null 2>&1 || skip "setfacl is missing (apt-get install acl)"

loop_mount ext4 64M "$T/fs"
B="$T/fs/b"
mkdir "$B"
mkdir "$B/preexisting-ledgers"
echo "ledger" >"$B/preexisting-ledgers/ledger-of-hamburg.xlsx"
setfattr -n user.originvault -v hr-department-vault "$B/preexisting-ledgers/ledger-of-hamburg.xlsx"
ln -s preexisting-ledgers/ledger-of-hamburg.xlsx "$B/shortcut-hamburg"

cat >"$T/app.sh" <<APP
set -e
cd "$B"
mkdir customer-acme-invoices
echo quarterly >customer-acme-invoices/quarterly-report.pdf
cat customer-acme-invoices/quarterly-report.pdf >/dev/null
ln -s customer-acme-invoices/quarterly-report.pdf shortcut-to-report
readlink shortcut-to-report >/dev/null
cat shortcut-hamburg >/dev/null
setfattr -n user.projectcodename -v zanzibar-merger customer-acme-invoices/quarterly-report.pdf
setfattr -n user.secondlabel -v zanzibar-merger preexisting-ledgers/ledger-of-hamburg.xlsx
getfattr -n user.originvault preexisting-ledgers/ledger-of-hamburg.xlsx >/dev/null
setfacl -m u:1000:rw customer-acme-invoices/quarterly-report.pdf
mv customer-acme-invoices/quarterly-report.pdf customer-acme-invoices/final-confidential.pdf
ls -l customer-acme-invoices preexisting-ledgers >/dev/null
dd if=/dev/zero of=payroll-streaming bs=65536 count=8 status=none
dd if=payroll-streaming of=/dev/null bs=4096 skip=3 count=5 status=none
chown 1234:4321 payroll-streaming
cp customer-acme-invoices/final-confidential.pdf lost+found-copy
mkdir lost+found
rm -f preexisting-ledgers/ledger-of-hamburg.xlsx
APP
expect_exit 0 "$FSTAP" record -q -o "$T/in.trace" "$B" -- sh "$T/app.sh" || finish
"$FSTAP" export "$T/in.trace" >"$T/in.jsonl"

# Keys: made 0600, never overwritten, too short refused.
expect_exit 0 "$FSTAP" anonymize --new-key="$T/key"
[ "$(stat -c %a:%s "$T/key")" = 600:32 ] || fail "key file: $(stat -c %a:%s "$T/key")"
cp "$T/key" "$T/key.copy"
expect_exit 1 "$FSTAP" anonymize --new-key="$T/key" && expect_grep "$T/err" "exists: not overwritten"
cmp -s "$T/key" "$T/key.copy" || fail "--new-key changed an existing key"
printf short >"$T/short.key"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/short.key" "$T/in.trace" -o "$T/x.trace" &&
	expect_grep "$T/err" "at least 16"
expect_exit 2 "$FSTAP" anonymize "$T/in.trace" -o "$T/x.trace" && expect_grep "$T/err" "key-file"
expect_exit 2 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" && expect_grep "$T/err" "-o OUT"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" -o "$T/in.trace" &&
	expect_grep "$T/err" "is the input"
expect_exit 1 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" -o "$T/key" &&
	expect_grep "$T/err" "is the input"
cmp -s "$T/key" "$T/key.copy" || fail "anonymize -o KEY changed the key"
[ ! -e "$T/x.trace" ] || fail "a failed anonymize left its output"

expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" -o "$T/a.trace" || finish
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" "$T/in.trace" -o "$T/a2.trace"
cmp -s "$T/a.trace" "$T/a2.trace" || fail "one key twice gave different traces"
"$FSTAP" export "$T/a.trace" >"$T/a.jsonl"

# The secrets: every name, target component, xattr name suffix and value,
# process name and command-line word of more than 3 bytes in TRACE, the
# backing path's components (the kept names aside); none may be in OUT.
python3 - "$T/in.jsonl" "$T/secrets" "$B" <<'PY'
import json, sys
# kept: the well-known names and the format's own words (op names, keys)
keep = {"lost+found", "user.DOSATTRIB", "system.posix_acl_access", "system.posix_acl_default",
        "security.capability", "security.selinux", "posix_acl_access", "posix_acl_default",
        "capability", "selinux"}
for line in open(sys.argv[1]):
    r = json.loads(line)
    keep |= set(r) | {r.get("op", "")}
s = set()
def raw(b):
    if isinstance(b, bytes):
        return b
    if isinstance(b, dict):
        return bytes.fromhex(b["hex"]) if "hex" in b else b.get("text", "").encode()
    return b.encode("utf-8", "surrogateescape")
def add(b):
    b = raw(b)
    if len(b) > 3 and b.decode("latin-1") not in keep:
        s.add(b)
def name(n):
    if raw(n) not in (b".", b".."):
        add(n)
for w in sys.argv[3].split("/"):
    add(w)
with open(sys.argv[1]) as f:
    f.readline()
    for line in f:
        r = json.loads(line)
        op = r["op"]
        for k in ("name", "newname"):
            if k in r:
                if op.endswith("xattr"):
                    add(r[k]); add(r[k].split(".", 1)[1])
                else:
                    name(r[k])
        if "target" in r:
            for c in raw(r["target"]).split(b"/"): name(c)
        for e in r.get("entries", []): name(e["name"])
        for x in r.get("xattrs", []):
            add(x["name"].split(".", 1)[1])
            if not x["name"].startswith("system."): add(x["value"])
        if op in ("setxattr", "getxattr") and "value" in r and not r["name"].startswith("system."):
            add(r["value"])
        if op == "process":
            add(r.get("comm", ""))
            for w in raw(r.get("cmdline", "")).split(b"\0"):
                add(w)
                for p in w.split(b"/"): add(p)
with open(sys.argv[2], "wb") as o:
    for b in sorted(s): o.write(b.hex().encode() + b"\n")
PY
for word in customer-acme-invoices quarterly-report.pdf ledger-of-hamburg.xlsx zanzibar-merger \
	hr-department-vault projectcodename setfattr payroll-streaming; do
	grep -qx "$(printf %s "$word" | od -An -v -tx1 | tr -d ' \n')" "$T/secrets" ||
		fail "the secret '$word' is not among those the trace holds"
done
leaks() {
	python3 - "$T/secrets" "$1" <<'PY'
import sys
data = open(sys.argv[2], "rb").read()
for line in open(sys.argv[1]):
    b = bytes.fromhex(line.strip())
    if b in data: print(b.decode("latin-1"))
PY
}
[ -n "$(leaks "$T/in.trace")" ] || fail "the leak check finds nothing in TRACE itself"
[ -z "$(leaks "$T/a.trace")" ] || fail "OUT holds: $(leaks "$T/a.trace" | tr '\n' ' ')"
[ -z "$(leaks "$T/a.jsonl")" ] || fail "export of OUT holds: $(leaks "$T/a.jsonl" | tr '\n' ' ')"
for k in host backing mountpoint mount_options command_line command; do
	[ "$(head -1 "$T/a.jsonl" | jq ".metadata | has(\"$k\")")" = false ] ||
		fail "metadata key $k kept"
done

# Structure kept: every other field equal, names of the same length,
# lost+found kept, equal values still equal, the ACL as recorded.
python3 - "$T/in.jsonl" "$T/a.jsonl" <<'PY' || fail "the anonymized records differ in structure"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])][1:]
b = [json.loads(l) for l in open(sys.argv[2])][1:]
assert len(a) == len(b), (len(a), len(b))
blen = lambda v: len(v.encode("utf-8", "surrogateescape"))
vals = {}
for x, y in zip(a, b):
    assert x["op"] == y["op"] and set(y) <= set(x), (x, y)
    for k in x:
        if k in ("name", "newname", "target", "path", "newpath", "path2"):
            assert blen(x[k]) == blen(y[k]), (x, y)
            if x[k] in ("lost+found", ".", ".."): assert x[k] == y[k], (x, y)
            elif k == "name" and not x["op"].endswith("xattr"): assert x[k] != y[k], (x, y)
        elif k == "value":
            vals.setdefault(json.dumps(x[k]), set()).add(json.dumps(y[k]))
            if x["name"].startswith("system."): assert x[k] == y[k], (x, y)
        elif k == "entries":
            assert [blen(e["name"]) for e in x[k]] == [blen(e["name"]) for e in y[k]]
        elif k == "xattrs":
            assert [blen(e["name"]) for e in x[k]] == [blen(e["name"]) for e in y[k]]
        elif k not in ("comm", "cmdline"):
            assert x[k] == y[k], (k, x, y)
        assert "cmdline" not in y, y
assert all(len(v) == 1 for v in vals.values()), vals
assert any(len(v) for k, v in vals.items() if "zanzibar" in k), vals
PY

# The workload: report --json of OUT shows the same mix, sizes and order
# (the names of processes and paths aside).
rep() {
	"$FSTAP" report --json "$1" | jq -S '{operations, bytes, touched, io, threads, access_order} |
		walk(if type == "object" then with_entries(select(.key | test("comm|path") | not)) else . end)'
}
rep "$T/in.trace" >"$T/in.rep"
rep "$T/a.trace" >"$T/a.rep"
diff "$T/in.rep" "$T/a.rep" >"$T/rep.diff" || fail "report differs: $(head -c 1500 "$T/rep.diff")"
"$FSTAP" report --json "$T/a.trace" | grep -q setfattr && fail "a process name kept without --keep-comm"

# prepare + replay of both: the same per-op counts, no more divergences.
replay_of() {
	mkdir "$T/fs/$2"
	expect_exit 0 "$FSTAP" prepare -q "$1" "$T/fs/$2" || return 1
	expect_exit 0 "$FSTAP" replay --json="$T/$2.json" "$1" "$T/fs/$2" || return 1
}
replay_of "$T/in.trace" rin
replay_of "$T/a.trace" ra
replay_sum() {
	jq -S '.runs[0] | {ops: (.by_op | map_values({count, errors, bytes, divergences})),
		divergences, not_replayed, op_records, records}' "$T/$1.json"
}
replay_sum rin >"$T/rin.sum"
replay_sum ra >"$T/ra.sum"
[ "$(jq .ops.setxattr.count "$T/rin.sum")" -ge 2 ] || fail "the replay made no setxattr: $(cat "$T/rin.sum")"
diff "$T/rin.sum" "$T/ra.sum" >"$T/replay.diff" ||
	fail "replay of OUT differs: $(head -c 1500 "$T/replay.diff")"
[ "$(jq .divergences "$T/ra.sum")" = 0 ] || fail "replay of OUT diverged: $(jq -c .divergence "$T/ra.json")"

# Another key: other tokens; --keep-extensions, --keep-names, --keep-comm.
head -c 32 /dev/urandom >"$T/key2"
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key2" "$T/in.trace" -o "$T/b.trace"
cmp -s "$T/a.trace" "$T/b.trace" && fail "two keys gave one trace"
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" --keep-extensions \
	--keep-names=customer-acme-invoices --keep-comm "$T/in.trace" -o "$T/c.trace"
"$FSTAP" export "$T/c.trace" >"$T/c.jsonl"
grep -q '"name":"customer-acme-invoices"' "$T/c.jsonl" || fail "--keep-names did not keep the name"
grep -q '"name":"[0-9A-Za-z]\{16\}\.pdf"' "$T/c.jsonl" || fail "--keep-extensions did not keep .pdf"
grep -q '"name":"[0-9A-Za-z]\{17\}\.xlsx"' "$T/c.jsonl" || fail "--keep-extensions did not keep .xlsx"
grep -q 'quarterly' "$T/c.jsonl" && fail "--keep-extensions kept the stem"
grep -q '"comm":"setfattr"' "$T/c.jsonl" || fail "--keep-comm did not keep process names"
grep -q 'zanzibar' "$T/c.jsonl" && fail "--keep-comm kept a command line"
expect_exit 2 "$FSTAP" anonymize --key-file="$T/key" --keep-names=a/b "$T/in.trace" -o "$T/x.trace"

# --map-ids: no uid or gid but 0 left as recorded (requesters, owners, the
# ACL's entries), and the replay still matches.
expect_exit 0 "$FSTAP" anonymize --key-file="$T/key" --map-ids "$T/in.trace" -o "$T/d.trace"
"$FSTAP" export "$T/d.trace" >"$T/d.jsonl"
python3 - "$T/in.jsonl" "$T/d.jsonl" <<'PY' || fail "--map-ids left an id"
import json, struct, sys
def ids(path):
    u, acl = set(), []
    for line in list(open(path))[1:]:
        r = json.loads(line)
        for k in ("uid", "gid", "owner_uid", "owner_gid"):
            if k in r: u.add(r[k])
        if r.get("name") == "system.posix_acl_access" and "value" in r:
            v = bytes.fromhex(r["value"]["hex"])
            acl += [struct.unpack_from("<HHI", v, i)[2] for i in range(4, len(v), 8)
                    if struct.unpack_from("<H", v, i)[0] in (2, 8)]
    return u, acl
u, acl = ids(sys.argv[1])
assert {1234, 4321} <= u and 1000 in acl, (u, acl)
u, acl = ids(sys.argv[2])
assert all(x == 0 or 10000 <= x < 10010 for x in u) and {1234, 4321} & u == set(), u
assert acl and all(10000 <= x < 10010 for x in acl), acl
PY
replay_of "$T/d.trace" rd
replay_sum rd >"$T/rd.sum"
diff "$T/rin.sum" "$T/rd.sum" >"$T/replay.diff" ||
	fail "replay with --map-ids differs: $(head -c 1500 "$T/replay.diff")"
finish
