#!/bin/busybox sh
# /init of the camfx test guest (runs as PID 1 from the initramfs built by
# build-initramfs.sh; run-in-guest.sh boots it).
#
# Loads the modules listed in /modules.list (virtio + 9p to reach the host, vivid and
# snd-aloop as the camera and sound card under test), mounts the host's root read-only
# and the writable exchange share, gives the host root fresh /dev, /proc, /sys, /tmp and
# /run, chroots into it and runs the script the host put into the exchange share. The
# script's stdout, stderr and exit status go back through the share; then the guest
# reboots, which with qemu's -no-reboot ends qemu.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

say() { echo "guest-init: $*" > /dev/console; }
finish() {
  sync
  umount /host/tmp/guest /exchange 2>/dev/null
  reboot -f
  sleep 10
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

say "kernel up after $(uptime_s) s"
while read -r ko params; do
  [ -n "$ko" ] || continue
  insmod "/modules/$ko" $params || say "insmod $ko failed"
done < /modules.list

opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts" exchange /exchange || { say "cannot mount the exchange share"; finish; }
# The host root is read-only; cache=loose lets the guest keep what it read (the host's
# files do not change while the guest runs), which matters a lot under TCG.
mount -t 9p -o "$opts,ro,cache=loose" host /host || { say "cannot mount the host root share"; finish; }
. /exchange/env
for d in proc sys dev tmp run; do
  [ -d "/host/$d" ] || { say "the host root has no /$d"; finish; }
done

# The host's /tmp disappears under the guest's own tmpfs; keep the working directory
# visible when it lives there (a checkout in /tmp).
mount --bind /host/tmp /hosttmp
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o mode=1777 shm /host/dev/shm
mount -t tmpfs -o mode=1777 tmp /host/tmp
mount -t tmpfs -o mode=755 run /host/run
case "$GUEST_DIR" in
  /tmp/*)
    mkdir -p "/host$GUEST_DIR"
    mount --bind "/hosttmp${GUEST_DIR#/tmp}" "/host$GUEST_DIR" ;;
esac
mkdir -p /host/tmp/guest
mount --bind /exchange /host/tmp/guest

uptime_s > /exchange/boot-seconds
say "running $GUEST_SCRIPT_NAME after $(uptime_s) s"
chroot /host /usr/bin/env -i \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8 TERM=dumb \
  GUEST_OUT=/tmp/guest/out GUEST_IN=/tmp/guest/in \
  /bin/sh -c '. /tmp/guest/env; cd "$GUEST_DIR" 2>/dev/null || cd /
    timeout "$GUEST_TIMEOUT" /bin/sh /tmp/guest/script.sh >/tmp/guest/stdout 2>/tmp/guest/stderr
    echo $? > /tmp/guest/status'
say "script finished with status $(cat /exchange/status 2>/dev/null) after $(uptime_s) s"
umount /host/dev/shm /host/dev/pts 2>/dev/null
finish
