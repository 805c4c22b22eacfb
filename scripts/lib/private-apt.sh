# Sourced by toolkit-from-debian.sh and cu12-libs.sh: fetch Debian packages with a private apt
# (its own sources list, lists, cache and an empty dpkg status), so the machine's apt sources and
# installed packages are neither read nor changed, and nothing is installed.

# private_apt_find DEB_DIR PKG: the cached .deb of PKG, or nothing.
private_apt_find() { find "$1/" -maxdepth 1 -name "${2}_*_*.deb" | sort | tail -1; }

# private_apt_fetch DEB_DIR SUITE CUDA_VERSION PKG...: download into DEB_DIR the packages it does
# not hold yet. NVIDIA's packages carry the CUDA release after '~' (12.4.131~12.4.1-2); a package
# whose version has a '~' must be of CUDA_VERSION, so a suite that moved on fails loudly.
private_apt_fetch() {
  local deb_dir=$1 suite=$2 want=$3; shift 3
  local missing=() p v
  for p in "$@"; do [[ -n "$(private_apt_find "$deb_dir" "$p")" ]] || missing+=("$p"); done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  local state="$deb_dir/apt" keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
  [[ -r "$keyring" ]] || { echo "private-apt: no $keyring (apt-get install debian-archive-keyring)" >&2; return 3; }
  echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main contrib non-free" > "$state/sources.list"
  : > "$state/status"
  local opts=(-o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
              -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache"
              -o Dir::State::Status="$state/status" -o APT::Architecture=amd64
              -o Acquire::Languages=none -o APT::Sandbox::User=root -q)
  echo "private-apt: apt-get update ($suite; state in $state)" >&2
  apt-get "${opts[@]}" update >/dev/null
  local specs=()
  for p in "${missing[@]}"; do
    v=$(apt-cache "${opts[@]}" show "$p" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
    [[ -n "$v" ]] || { echo "private-apt: $suite has no package $p" >&2; return 3; }
    if [[ "$v" == *"~"* && "$v" != *"~$want".* ]]; then
      echo "private-apt: $suite has $p $v, not CUDA $want (try another suite)" >&2; return 3
    fi
    specs+=("$p=$v")
  done
  echo "private-apt: downloading ${specs[*]} into $deb_dir" >&2
  (cd "$deb_dir" && apt-get "${opts[@]}" download "${specs[@]}" >/dev/null)
}
