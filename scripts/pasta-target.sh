# Sourced by ./jslirp for `jslirp pasta ARGV0 ARGS...` (bin/pasta), before the JVM starts: reads
# pasta's command line as far as the launcher must, by getopt's rules (pasta's optstring, which stops
# at the first operand):
#
# - pasta_userns: the user namespace pasta joins before the network namespace (--userns PATH, else a
#   target PID's /proc/PID/ns/user; none with --netns-only). A running JVM is multithreaded and can
#   no longer join one, so the launcher starts the JVM in it.
# - pasta_command: 1 when pasta is to run a command (or a shell) in new namespaces: no --netns, no
#   PID, no --help/--version. The JVM then starts in a new user and mount namespace of its own
#   (as for `jslirp run`), makes the command's network namespace and stays in the foreground.
# - pasta_foreground: 1 with -f/--foreground: the JVM then runs in the launcher's place; otherwise
#   the launcher waits for it to say "ready" (or to exit with its error) and returns, leaving it
#   serving in the background.
#
# Long options are recognised in full only (getopt also takes abbreviations: the JVM, reading the
# line itself, then finds the user namespace not joined and says so). Builtins only.

# The short options that take a value (pasta's optstring "+dqfel:hc:F:I:p:P:m:a:n:M:g:i:o:D:S:46t:u:T:U:")
# and the long ones (conf.c's table); PastaLauncherTest checks these lists against PastaParser's.
pasta_value_short="lcFIpPmanMgioDStuTU"
pasta_value_long=" --log-file --socket --fd --ns-ifname --pcap --pid --mtu --address --netmask --mac-addr --gateway
  --interface --outbound --dns --search --tcp-ports --udp-ports --tcp-ns --udp-ns --userns --netns --ns-mac-addr
  --dns-forward --runas --log-size --outbound-if4 --outbound-if6 --map-host-loopback --map-guest-addr --dns-host
  --socket-path --conf-path --jslirp-seccomp-agent "
pasta_value_long=${pasta_value_long//$'\n'/ }

pasta_parse() {
  pasta_userns="" pasta_foreground=0 pasta_command=0
  local userns="" pid="" netns_only=0 netns=0 exits=0 a name value c j
  local -a args=("$@")
  local i=0 n=${#args[@]}
  while (( i < n )); do
    a=${args[i]}
    i=$((i + 1))
    if [[ "$a" == -- ]]; then
      (( i < n )) && [[ "${args[i]}" =~ ^[0-9]+$ ]] && pid=${args[i]}
      break
    fi
    if [[ "$a" != -* || "$a" == - ]]; then
      [[ "$a" =~ ^[0-9]+$ ]] && pid=$a
      break
    fi
    if [[ "$a" == --* ]]; then
      name=${a%%=*} value=""
      if [[ "$a" == *=* ]]; then
        value=${a#*=}
      elif [[ "$pasta_value_long" == *" $name "* ]]; then
        (( i < n )) || break
        value=${args[i]}; i=$((i + 1))
      fi
      case $name in
        --userns) userns=$value; netns_only=0 ;;
        --netns-only) netns_only=1 ;;
        --netns) netns=1 ;;
        --foreground) pasta_foreground=1 ;;
        --help|--version|--print-capabilities) exits=1 ;;
      esac
      continue
    fi
    j=1
    while (( j < ${#a} )); do
      c=${a:j:1}
      j=$((j + 1))
      [[ $c == f ]] && pasta_foreground=1
      [[ $c == h ]] && exits=1
      if [[ "$pasta_value_short" == *"$c"* ]]; then
        (( j < ${#a} )) || i=$((i + 1)) # the value is the next argument
        break
      fi
    done
  done
  (( netns == 0 && exits == 0 )) && [[ -z "$pid" ]] && pasta_command=1
  if (( netns_only == 0 )); then
    if [[ -n "$userns" ]]; then pasta_userns=$userns
    elif [[ -n "$pid" ]]; then pasta_userns=/proc/$pid/ns/user
    fi
  fi
  return 0
}
