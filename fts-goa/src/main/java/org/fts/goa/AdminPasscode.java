package org.fts.goa;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;

/**
 * The passcode that an operator's state-changing commands ({@code fts backup}, {@code fts restore}) prove they know,
 * on the probe port that also answers {@code fts status} (docs/security.md, "The admin plane"). A command travels as
 * {@code <command>;t=<millis>;n=<nonce>;mac=<hex>}: an HMAC-SHA256 with the passcode over the command, its time and
 * a nonce. A replica with a passcode ({@code fts.admin.passcode_file}) runs a command only if its MAC is right, its
 * time is within {@value #WINDOW_SECONDS} s of the replica's clock, and its nonce was not seen in that window (a
 * request captured on the way cannot be sent again, nor its MAC put on another command). The passcode never travels.
 * Read-only keys ({@code fts status}) stay open.
 */
public final class AdminPasscode {
    public static final ConfigKey<String> FILE = ConfigKey.optionalAbsoluteFile("fts.admin.passcode_file",
            "a file whose first line is the passcode that fts backup and fts restore must prove (an HMAC over each "
                    + "command, its time and a nonce: the passcode never travels); empty: those commands are "
                    + "accepted from anyone who reaches the probe port (a warning at start)");
    static final List<ConfigKey<?>> KEYS = List.of(FILE);
    static final long WINDOW_SECONDS = 60;
    private static final Duration WINDOW = Duration.ofSeconds(WINDOW_SECONDS);
    private static final int SEEN_MAX = 10_000;

    /** A command refused: the reason, for the operator's answer and the replica's log. */
    public static final class Refused extends Exception {
        Refused(String why) {
            super(why);
        }
    }

    private final byte[] secret;
    /** Nonces accepted within the window, oldest first: nonce to the command's time. */
    private final LinkedHashMap<String, Long> seen = new LinkedHashMap<>();

    private AdminPasscode(byte[] secret) {
        this.secret = secret;
    }

    /** No passcode: commands are not signed, and any is accepted. */
    public static AdminPasscode none() {
        return new AdminPasscode(null);
    }

    /** The passcode {@code fts.admin.passcode_file} names in {@code props}, or none. */
    public static AdminPasscode load(Properties props) {
        String file = FILE.get(props).trim();
        return file.isEmpty() ? none() : fromFile(Path.of(file), FILE.name());
    }

    /** The passcode in {@code file}'s first line; {@code key} names where it came from in errors. */
    public static AdminPasscode fromFile(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            String code = lines.isEmpty() ? "" : lines.get(0).trim();
            if (code.length() < 16) {
                throw new ConfigException(key, "names " + file + ", whose first line holds " + code.length()
                        + " characters: a passcode needs 16 or more (e.g. head -c 32 /dev/urandom | base64)");
            }
            return new AdminPasscode(code.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ConfigException(key, "names " + file + ", which cannot be read: " + e.getMessage());
        }
    }

    /** Whether a passcode is configured. */
    public boolean configured() {
        return secret != null;
    }

    /** {@code command} as sent at {@code nowMillis} with {@code nonce}: signed when a passcode is configured. */
    public String sign(String command, long nowMillis, String nonce) {
        if (secret == null) {
            return command;
        }
        String body = command + ";t=" + nowMillis + ";n=" + nonce;
        return body + ";mac=" + HexFormat.of().formatHex(mac(body));
    }

    /**
     * The command {@code key} carries, if it may run at {@code nowMillis}: any key when no passcode is configured,
     * else only one signed with it, fresh, and not seen before.
     */
    public synchronized String verify(String key, long nowMillis) throws Refused {
        if (secret == null) {
            return key;
        }
        int m = key.lastIndexOf(";mac=");
        int n = m < 0 ? -1 : key.lastIndexOf(";n=", m);
        int t = n < 0 ? -1 : key.lastIndexOf(";t=", n);
        if (t < 0) {
            throw new Refused("this replica requires the admin passcode (fts.admin.passcode_file): run the command "
                    + "with the replica's configuration (--config) or --passcode-file");
        }
        String body = key.substring(0, m);
        byte[] given;
        long at;
        try {
            given = HexFormat.of().parseHex(key.substring(m + 5));
            at = Long.parseLong(key.substring(t + 3, n));
        } catch (IllegalArgumentException e) {
            throw new Refused("a malformed signed command");
        }
        if (!MessageDigest.isEqual(given, mac(body))) {
            throw new Refused("the command's passcode is not this replica's (fts.admin.passcode_file)");
        }
        if (Math.abs(nowMillis - at) > WINDOW.toMillis()) {
            throw new Refused("the command was signed " + (nowMillis - at) / 1000 + " s from this replica's clock, "
                    + "more than " + WINDOW_SECONDS + " s: a replayed request, or clocks apart");
        }
        for (Iterator<Map.Entry<String, Long>> it = seen.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            if (Math.abs(nowMillis - e.getValue()) <= WINDOW.toMillis() && seen.size() <= SEEN_MAX) {
                break;
            }
            it.remove();
        }
        String nonce = key.substring(n + 3, m);
        if (seen.putIfAbsent(nonce, at) != null) {
            throw new Refused("the command's nonce was seen already: a replayed request");
        }
        return key.substring(0, t);
    }

    private byte[] mac(String body) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return hmac.doFinal(body.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
