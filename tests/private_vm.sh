# SPDX-License-Identifier: BSD-3-Clause
# private_vm.sh -- sourced by the tests and the demo: a private PVM
# virtual machine on this host, with its own PVM_TMP so it never meets
# another pvmd, halted by private_vm_halt (call it from a trap on EXIT).
#
#   private_vm_start EP_DIR...   start pvmd; spawned programs are looked
#                                for in the EP_DIRs (and pvmgs's dir)
#   private_vm_halt              halt it and remove its PVM_TMP

private_vm_start() {
    PVMD=$(command -v pvmd || echo /usr/lib/pvm3/lib/pvmd)
    if [ ! -x "$PVMD" ]; then
        echo "pvmd is not installed (apt-get install pvm)"
        return 77
    fi
    pvmgs_dir=$(dirname "$(command -v pvmgs || echo /usr/bin/pvmgs)")
    PVM_ROOT=${PVM_ROOT:-/usr/lib/pvm3}
    PVM_ALLOW_ROOT=1
    PVM_TMP=$(mktemp -d /tmp/eco-pvm-XXXXXX)
    export PVM_ROOT PVM_ALLOW_ROOT PVM_TMP
    ep=$(echo "$@" | tr ' ' ':')
    echo "* ep=$ep:$pvmgs_dir" > "$PVM_TMP/hostfile"
    "$PVMD" "$PVM_TMP/hostfile" </dev/null >"$PVM_TMP/pvmd.out" 2>&1 &
    private_vm_pid=$!
    # pvmd creates its address file, then writes the address: a task
    # that reads it empty in between cannot contact the daemon
    # ("mksocs() read addr file: wrong length read"; legacy.test failed so
    # once in a CI run on a quiet machine).  So: until it is not empty.
    i=0
    while [ ! -s "$PVM_TMP/pvmd.$(id -u)" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if [ ! -s "$PVM_TMP/pvmd.$(id -u)" ]; then
        echo "the private pvmd did not start:"
        cat "$PVM_TMP/pvmd.out"
        return 1
    fi
    return 0
}

# The tasks of the virtual machine (the console's own and PVM's group
# server excluded: it runs until the halt).
private_vm_tasks() {
    echo 'ps -a' | pvm 2>/dev/null |
        awk '/HOST +TID/ { h = 1; next }
             h && NF >= 3 && $2 ~ /^[0-9a-f]+$/ && $0 !~ /pvmgs/ { n++ }
             END { print n + 0 }'
}

private_vm_halt() {
    if [ -n "${private_vm_pid:-}" ] && kill -0 "$private_vm_pid" 2>/dev/null; then
        # Let tasks that are exiting finish first (up to 20 s): under the
        # sanitizers a task runs its leak check at exit, and halting
        # killed it half way through its report (an empty report file).
        i=0
        while [ "$(private_vm_tasks)" -gt 0 ] && [ $i -lt 200 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        echo halt | pvm >/dev/null 2>&1
        i=0
        while kill -0 "$private_vm_pid" 2>/dev/null && [ $i -lt 30 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill "$private_vm_pid" 2>/dev/null
        wait "$private_vm_pid" 2>/dev/null
    fi
    private_vm_pid=
    [ -n "${PVM_TMP:-}" ] && rm -rf "$PVM_TMP"
    return 0
}
