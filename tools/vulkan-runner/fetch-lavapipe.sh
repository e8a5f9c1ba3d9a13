#!/bin/bash
# fetch-lavapipe.sh OUTDIR — a private lavapipe (Mesa's CPU Vulkan driver) for the test suite.
#
# Debian 12's own lavapipe (22.3.6) has two defects that give wrong answers (a 65,535-iteration
# loop limiter, lost stores after a barrier in a nested non-uniform loop; see README "Testing"),
# so the suite uses mesa-vulkan-drivers 25.x from bookworm-backports. The machine's apt
# configuration is never changed: apt-get runs with its own sources list, lists, cache and
# preferences under OUTDIR/apt, reads only the dpkg status (to see what is installed), and the
# packages apt would install or upgrade are downloaded and unpacked with dpkg -x into OUTDIR/root.
# Writes OUTDIR/lvp_icd.json (absolute library path; the suite sets VK_DRIVER_FILES to it) and
# OUTDIR/libdir (the directory vkrun needs in LD_LIBRARY_PATH for the newer libdrm).
# Exit 0 when OUTDIR/lvp_icd.json exists afterwards, 1 otherwise (the reason is printed).
# QDC_DEBIAN_MIRROR overrides the mirror (by default the one /etc/apt uses for bookworm);
# QDC_DPKG_STATUS the dpkg status file apt plans against (default /var/lib/dpkg/status).
set -u
out=${1:?usage: fetch-lavapipe.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
say() { echo "vulkan-deps: $*" >&2; }

if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
    say "apt-get/dpkg not found (not Debian?); install a Vulkan 1.3 driver yourself and set VK_DRIVER_FILES"
    exit 1
fi
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || ${CC:-cc} -print-multiarch 2>/dev/null)
multiarch=${multiarch:-x86_64-linux-gnu}

# The mirror the machine already uses for Debian's main archive (sources.list or deb822 .sources).
mirror=${QDC_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
             awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/ && $(i+1) ~ /^bookworm$/) { print $i; exit } }')
fi
if [ -z "$mirror" ]; then
    mirror=$(awk 'BEGIN { RS = ""; FS = "\n" }
                  /Suites:[^\n]*bookworm( |$|\n)/ { for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, u, " "); if (u[2] !~ /security/) { print u[2]; exit } } }' \
             /etc/apt/sources.list.d/*.sources 2>/dev/null)
fi
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { say "$keyring missing (package debian-archive-keyring)"; exit 1; }

a="$out/apt"
rm -rf "$a/parts" "$a/prefs" "$out/debs" "$out/root.new"
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts" "$a/prefs" "$out/debs" "$out/root.new"
cat > "$a/sources.list" <<SRC
deb [signed-by=$keyring] $mirror bookworm main
deb [signed-by=$keyring] $mirror bookworm-updates main
deb [signed-by=$keyring] $mirror bookworm-backports main
SRC
apt=(apt-get -q -o "Dir::Etc::SourceList=$a/sources.list" -o "Dir::Etc::SourceParts=$a/parts"
     -o "Dir::Etc::Preferences=$a/prefs/none" -o "Dir::Etc::PreferencesParts=$a/prefs"
     -o "Dir::State::Lists=$a/lists" -o "Dir::State::extended_states=$a/extended_states"
     -o "Dir::State::status=${QDC_DPKG_STATUS:-/var/lib/dpkg/status}" -o "Dir::Cache=$a/cache"
     -o "Debug::NoLocking=true" -o "APT::Sandbox::User=$(id -un)" -o "APT::Architecture=$arch")

say "fetching lavapipe 25.x from $mirror bookworm-backports (private apt state in $a)"
"${apt[@]}" --error-on=any update >"$a/update.log" 2>&1 || { say "apt-get update failed:"; tail -5 "$a/update.log" >&2; exit 1; }
# What installing mesa-vulkan-drivers from backports (and the Khronos validation layer, for
# vkrun --validate) would install or upgrade here.
"${apt[@]}" -s install -t bookworm-backports mesa-vulkan-drivers vulkan-validationlayers >"$a/plan.log" 2>&1 ||
    { say "apt-get cannot plan mesa-vulkan-drivers:"; tail -5 "$a/plan.log" >&2; exit 1; }
# The C library and the compiler runtime are never taken from here (they are installed, and a
# second copy in LD_LIBRARY_PATH would not mix with the system's dynamic loader).
pkgs=$(sed -n 's/^Inst \([^ ]*\) .*(\([^ ]*\) .*/\1=\2/p' "$a/plan.log" |
       grep -Ev '^(libc6|libc-bin|libgcc-s1|libstdc\+\+6|libc6-dev|linux-libc-dev)=')
case " $pkgs " in *" mesa-vulkan-drivers="*) ;; *)
    pkgs="$pkgs mesa-vulkan-drivers/bookworm-backports" ;; esac
(cd "$out/debs" && "${apt[@]}" download $pkgs) >"$a/download.log" 2>&1 ||
    { say "apt-get download failed:"; tail -5 "$a/download.log" >&2; exit 1; }
for deb in "$out"/debs/*.deb; do
    dpkg -x "$deb" "$out/root.new" || { say "dpkg -x $deb failed"; exit 1; }
done
lib="$out/root/usr/lib/$multiarch"
[ -f "$out/root.new/usr/lib/$multiarch/libvulkan_lvp.so" ] || { say "no libvulkan_lvp.so in mesa-vulkan-drivers"; exit 1; }
api=$(sed -n 's/.*"api_version": *"\([0-9.]*\)".*/\1/p' "$out/root.new/usr/share/vulkan/icd.d/lvp_icd.json")
case "$api" in 1.[3-9].*) ;; *) say "lavapipe from backports reports Vulkan '$api' (want 1.3 or later)"; exit 1 ;; esac
rm -rf "$out/root" && mv "$out/root.new" "$out/root" && rm -rf "$out/debs"
printf '%s\n' "$lib" > "$out/libdir"
cat > "$out/lvp_icd.json.tmp" <<JSON
{
    "file_format_version": "1.0.0",
    "ICD": {
        "library_path": "$lib/libvulkan_lvp.so",
        "api_version": "$api"
    }
}
JSON
mv "$out/lvp_icd.json.tmp" "$out/lvp_icd.json"
say "lavapipe $(sed -n 's/^Inst mesa-vulkan-drivers .*(\([^ ]*\) .*/\1/p' "$a/plan.log") (Vulkan $api) in $out/root"
