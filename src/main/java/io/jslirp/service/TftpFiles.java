package io.jslirp.service;

import io.jslirp.wire.Tftp;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The files the TFTP server serves: regular files under its directory, read-only. A name is
 * relative to the directory even when it starts with '/' (as in QEMU, where PXE configurations
 * use such names); a ".." component, or a symbolic link that leads out of the directory, is an
 * access violation.
 */
public final class TftpFiles {
    /** A file opened for a transfer, or the TFTP error code and message that refuse it. */
    record Opened(FileChannel channel, long size, int error, String message) {
        static Opened refused(int error, String message) {
            return new Opened(null, -1, error, message);
        }
    }

    private final Path root;

    /** Throws IOException when dir does not exist. */
    public TftpFiles(Path dir) throws IOException {
        this.root = dir.toRealPath();
    }

    Opened open(String name) {
        String relative = name.replaceFirst("^/+", "");
        for (String component : relative.split("/")) {
            if (component.equals("..")) return Opened.refused(Tftp.ERR_ACCESS, "access violation");
        }
        if (relative.isEmpty()) return Opened.refused(Tftp.ERR_NOT_FOUND, "file not found");
        Path file;
        try {
            file = root.resolve(relative).toRealPath();
        } catch (NoSuchFileException | InvalidPathException e) {
            return Opened.refused(Tftp.ERR_NOT_FOUND, "file not found");
        } catch (IOException e) {
            return Opened.refused(Tftp.ERR_ACCESS, "access violation");
        }
        if (!file.startsWith(root) || !Files.isRegularFile(file)) return Opened.refused(Tftp.ERR_ACCESS, "access violation");
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            return new Opened(channel, channel.size(), 0, null);
        } catch (AccessDeniedException e) {
            return Opened.refused(Tftp.ERR_ACCESS, "access violation");
        } catch (IOException e) {
            return Opened.refused(Tftp.ERR_UNDEFINED, "cannot read the file");
        }
    }
}
