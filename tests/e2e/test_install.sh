# test_install.sh - clrprobe as it is installed where .NET runs: built
# against glibc 2.28's symbols (build/sysroot, Debian 11's C library, made by
# the set-up), run on Debian 11's C library for real, `make install`'s layout
# (PREFIX, DESTDIR) and `make deb`'s package, and --version.  These check the
# release build, build/, also in the sanitized run (which is built against the
# machine's own C library on purpose).

PRODUCT=("$ROOT/build/clrprobe" "$ROOT/build/libclrprobe.so")
SYSROOT="$ROOT/build/sysroot"

need_sysroot() {
    [[ -f $SYSROOT/.made ]] || { fail "$SYSROOT is missing: 'make setup' makes it (scripts/sysroot.sh)"; return 1; }
}

# on_debian11 PROGRAM ARGS...: PROGRAM run by Debian 11's dynamic loader on
# Debian 11's C library (glibc 2.31), not the machine's.
on_debian11() {
    "$SYSROOT/lib64/ld-linux-x86-64.so.2" --library-path \
        "$SYSROOT/lib/x86_64-linux-gnu:$SYSROOT/usr/lib/x86_64-linux-gnu" "$@"
}

make_here() {
    (cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@")
}

test_install_needs_only_glibc_2_28() {
    local f newest needed
    for f in "${PRODUCT[@]}"; do
        # the newest symbol version of each library it takes symbols from
        newest=$(objdump -T "$f" | grep -o '(GLIBC_[0-9.]*)' | tr -d '()' | sed 's/GLIBC_//' | sort -V | tail -1)
        echo "${f##*/}: newest glibc symbol version $newest"
        [[ -n $newest ]] || { fail "${f##*/}: no glibc symbol versions read (objdump -T)"; continue; }
        [[ $(printf '%s\n2.28\n' "$newest" | sort -V | tail -1) == 2.28 ]] ||
            fail "${f##*/} needs GLIBC_$newest: $(objdump -T "$f" | grep "GLIBC_$newest)" | awk '{print $NF}' | paste -sd' ')"
        # only the C library's own and zlib
        needed=$(objdump -p "$f" | awk '$1 == "NEEDED" {print $2}' | sort | paste -sd' ')
        echo "${f##*/}: needs $needed"
        for lib in $needed; do
            [[ $lib =~ ^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|libz\.so\.1)$ ]] ||
                fail "${f##*/} needs $lib, which a glibc 2.28 system may not have"
        done
    done
    # and an old glibc runs it: the command on Debian 11's C library reads a
    # trace as it does on the machine's (the agent on it: test_containers.sh)
    need_sysroot || return
    assert_contains "$(on_debian11 "$ROOT/build/clrprobe" --version)" "runs on glibc 2.28 or later" "--version on glibc 2.31"
    "$CLRPROBE" run -o t.clrp -- "$SAMPLE" jit >/dev/null 2>&1
    assert_eq 0 "$?" "recording"
    "$ROOT/build/clrprobe" report t.clrp >host.txt 2>&1
    on_debian11 "$ROOT/build/clrprobe" report t.clrp >old.txt 2>&1
    assert_eq 0 "$?" "report on glibc 2.31"
    cmp -s host.txt old.txt || { fail "the report differs on glibc 2.31"; diff host.txt old.txt | head -5; }
    assert_contains old.txt "ClrProbe.Sample" "the sample's methods in the report on glibc 2.31"
}

test_install_version_names_the_commit() {
    local v head
    v=$("$ROOT/build/clrprobe" --version)
    echo "$v"
    [[ $v =~ ^clrprobe\ [0-9]+\.[0-9]+\.[0-9]+\ \(built\ from\ [^\;]+\;\ runs\ on\ glibc\ 2\.28\ or\ later\)$ ]] ||
        fail "--version: '$v'"
    if head=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
        assert_contains "$v" "built from $(git -C "$ROOT" describe --always --dirty)" "the commit it was built from"
        assert_contains "$v" "$head" "the head commit"
    fi
}

# make install: the command finds its agent in PREFIX/lib/clrprobe (nothing
# beside it in bin/), and a program runs under it as without it.
test_install_prefix_and_destdir() {
    make_here install PREFIX=/opt/cp DESTDIR="$PWD/stage"
    assert_eq 0 "$?" "make install"
    local bin=stage/opt/cp/bin/clrprobe
    [[ -x $bin ]] || { fail "no $bin"; return; }
    assert_eq 644 "$(stat -c %a stage/opt/cp/lib/clrprobe/libclrprobe.so)" "the agent's mode"
    [[ -f stage/opt/cp/share/doc/clrprobe/README.md ]] || fail "no README in share/doc"
    cmp -s "$ROOT/build/libclrprobe.so" stage/opt/cp/lib/clrprobe/libclrprobe.so || fail "the installed agent differs"
    "$SAMPLE" jit >plain.out
    "$bin" run -o i.clrp -- "$SAMPLE" jit >prof.out 2>err
    assert_eq 0 "$?" "exit code under the installed clrprobe"
    cmp -s plain.out prof.out || fail "output changed under the installed clrprobe"
    "$bin" report i.clrp >r.txt 2>&1
    assert_contains r.txt "ClrProbe.Sample" "the installed command's report"
    make_here uninstall PREFIX=/opt/cp DESTDIR="$PWD/stage"
    assert_eq 0 "$?" "make uninstall"
    assert_eq "" "$(find stage -type f)" "files left by uninstall"
}

# make deb: a package apt takes (its dependencies resolve here), whose files
# are the installed layout under /usr, and which runs from there.
test_install_debian_package() {
    need_sysroot || return
    local deb
    deb=$("$ROOT/scripts/make_deb.sh" "$ROOT/build" "$PWD" 2>err)
    assert_eq 0 "$?" "make_deb.sh"
    [[ -f $deb ]] || { fail "no package: $(cat err)"; return; }
    echo "${deb##*/}"
    assert_eq clrprobe "$(dpkg-deb -f "$deb" Package)" "Package"
    assert_eq amd64 "$(dpkg-deb -f "$deb" Architecture)" "Architecture"
    assert_contains "$(dpkg-deb -f "$deb" Depends)" "libc6 (>= 2.28)" "Depends"
    # (serve's HTTP server, which it loads when it starts: suggested, not recommended, so that an
    # installation without the network, as in the container test, needs nothing but the C library and zlib)
    assert_eq libmicrohttpd12 "$(dpkg-deb -f "$deb" Suggests)" "Suggests (serve's HTTP server)"
    [[ $(dpkg-deb -f "$deb" Version) =~ ^[0-9]+\.[0-9]+\.[0-9]+\+g[0-9a-f]+(\.dirty)?$ ]] ||
        fail "Version '$(dpkg-deb -f "$deb" Version)'"
    dpkg-deb -c "$deb" | awk '{print $NF}' >files.txt
    for f in ./usr/bin/clrprobe ./usr/lib/clrprobe/libclrprobe.so ./usr/share/doc/clrprobe/README.md; do
        grep -qxF "$f" files.txt || fail "$f not in the package"
    done
    assert_eq 0 "$(dpkg-deb -c "$deb" | awk '$2 != "root/root"' | wc -l)" "files not owned by root"
    # apt would install it here (a simulation: nothing is changed)
    apt-get install -s "$deb" >apt.txt 2>&1
    assert_eq 0 "$?" "apt-get install -s"
    assert_contains apt.txt "Inst clrprobe" "apt's plan"
    # installed into a root of its own with dpkg, it runs there, on Debian 11's C library too
    mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates
    : >root/var/lib/dpkg/status
    dpkg --root="$PWD/root" --force-depends --force-not-root --log=/dev/null -i "$deb" >dpkg.txt 2>&1
    assert_eq 0 "$?" "dpkg -i into a root of its own: $(tail -2 dpkg.txt)"
    "$SAMPLE" jit >plain.out
    root/usr/bin/clrprobe run -o d.clrp -- "$SAMPLE" jit >prof.out 2>err
    assert_eq 0 "$?" "exit code under the packaged clrprobe"
    cmp -s plain.out prof.out || fail "output changed under the packaged clrprobe"
    on_debian11 root/usr/bin/clrprobe report d.clrp >r.txt 2>&1
    assert_contains r.txt "ClrProbe.Sample" "the packaged command's report on glibc 2.31"
}
