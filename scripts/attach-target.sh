# Sourced by ./jslirp for `jslirp attach` (slirp4netns's command line), before the JVM starts:
#
# - attach_userns: the user namespace the JVM must start in. slirp4netns joins its target's user
#   namespace (/proc/PID/ns/user, or --userns-path with --netns-type=path) before the network
#   namespace; a running JVM is multithreaded and can no longer join one, so the launcher starts it
#   there. Empty when the target is in ours (joining one's own fails).
# - the tap device: created here, in the target's namespaces, when it does not exist yet, so that it
#   is there a few milliseconds after the command starts, as slirp4netns's is (its test scripts, and
#   callers like them, run `ip link set tap0 up` right after starting it); the JVM attaches to it
#   later. JSLIRP_LAUNCHER_TAP names a device made here: the JVM then lets it go when it exits (or
#   removes it when its arguments are refused), as slirp4netns's device goes with slirp4netns.
#   Not with --configure or --api-socket: a caller that asks for those waits for the device and
#   then takes it as configured, or talks to the socket at once (slirp4netns's scripts do), so the
#   device must appear with them, when the JVM has them ready.
#
# Only bash builtins and one nsenter on the way: no subshell, no fork before the tap exists.
# Anything unusual (no target, a bad argument, no `ip`) is left to the JVM, which says what is wrong.

# The options of `jslirp attach` that take a value (picocli: --opt VALUE, --opt=VALUE, -oVALUE).
# AttachOptionsTest checks this list against the command's options.
attach_value_options=" -m --mtu --cidr --macaddress --resolv-conf -t --tcp-forward --tftp --bootfile --pcap
  --pcap-size --pcap-filter -u --udp-forward -a --api-socket --outbound-addr --outbound-addr6 --allow --deny
  --busy-poll --max-connections --max-half-open --max-udp-flows --tcp-buffer --buffer-budget -r --ready-fd
  -e --exit-fd --netns-type --userns-path "
attach_value_options=${attach_value_options//$'\n'/ }

# Reads `attach ARGS...` as picocli will: sets attach_target (empty for --help, --version or an
# incomplete command line), attach_tap, attach_netns_type, attach_userns_path, and attach_configure
# and attach_api (1 with --configure, --api-socket).
attach_parse() {
  attach_target="" attach_tap=tap0 attach_netns_type=pid attach_userns_path="" attach_configure=0 attach_api=0
  local positional=0 only_positional=0 a name
  local -a args=("${@:2}")
  local i=0 n=${#args[@]}
  while (( i < n )); do
    a=${args[i]}
    i=$((i + 1))
    if (( only_positional )) || [[ "$a" != -* || "$a" == - ]]; then
      case $positional in
        0) attach_target=$a ;;
        1) attach_tap=$a ;;
      esac
      positional=$((positional + 1))
      continue
    fi
    if [[ "$a" == -- ]]; then only_positional=1; continue; fi
    local value="" has_value=0
    if [[ "$a" == --* ]]; then
      name=${a%%=*}
      if [[ "$a" == *=* ]]; then value=${a#*=}; has_value=1; fi
      case $name in
        --help|--version) attach_target=""; return 0 ;;
      esac
      if [[ "$attach_value_options" == *" $name "* && $has_value == 0 ]]; then
        (( i < n )) || { attach_target=""; return 0; }
        value=${args[i]}; i=$((i + 1)); has_value=1
      fi
    else
      # A cluster of short options (-c6, -cr3, -r 3): flags until one that takes a value.
      local j=1 c
      name=""
      while (( j < ${#a} )); do
        c=${a:j:1}
        j=$((j + 1))
        case $c in
          h|v|V) attach_target=""; return 0 ;;
          c) attach_configure=1 ;;
        esac
        if [[ "$attach_value_options" == *" -$c "* ]]; then
          name=-$c
          if (( j < ${#a} )); then
            value=${a:j}
          else
            (( i < n )) || { attach_target=""; return 0; }
            value=${args[i]}; i=$((i + 1))
          fi
          has_value=1
          break
        fi
      done
    fi
    case $name in
      --netns-type) attach_netns_type=$value ;;
      --userns-path) attach_userns_path=$value ;;
      --configure) attach_configure=1 ;;
      -a|--api-socket) attach_api=1 ;;
    esac
  done
  (( positional <= 2 )) || attach_target=""
  return 0
}

# Sets attach_userns and makes the tap device (see the top of this file).
attach_prepare() {
  attach_userns=""
  unset JSLIRP_LAUNCHER_TAP
  attach_parse "$@"
  local target=$attach_target tap=$attach_tap netns userns
  [[ -n "$target" ]] || return 0
  case $attach_netns_type in
    pid)
      [[ "$target" =~ ^[0-9]+$ ]] || return 0
      netns=/proc/$target/ns/net
      userns=${attach_userns_path:-/proc/$target/ns/user}
      ;;
    path)
      netns=$target
      userns=$attach_userns_path
      ;;
    *) return 0 ;;
  esac
  if [[ -n "$userns" && -e "$userns" && ! "$userns" -ef /proc/self/ns/user ]]; then
    attach_userns=$userns
  fi

  (( attach_configure == 0 && attach_api == 0 )) || return 0
  # Never the launcher's own network namespace (the JVM refuses such a target with one line).
  [[ -e "$netns" && ! "$netns" -ef /proc/self/ns/net ]] || return 0
  [[ "$tap" =~ ^[A-Za-z0-9_.:-]{1,15}$ ]] || return 0
  local -a enter=(nsenter)
  [[ -n "$attach_userns" ]] && enter+=(--user="$attach_userns" --preserve-credentials)
  enter+=(--net="$netns" --)
  # As the JVM opens it: a multi-queue tap with vnet headers. Exit 3: the device was there already
  # (a caller such as rootlesskit made it), and stays the caller's.
  if PATH=$PATH:/usr/sbin:/sbin "${enter[@]}" sh -c \
      'ip link show dev "$1" >/dev/null 2>&1 && exit 3; exec ip tuntap add name "$1" mode tap multi_queue vnet_hdr' \
      sh "$tap" </dev/null >/dev/null 2>&1; then
    export JSLIRP_LAUNCHER_TAP=$tap
  fi
  return 0
}
