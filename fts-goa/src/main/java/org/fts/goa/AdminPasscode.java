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
 * {@code <command>;g=<group>;r=<replica>;t=<millis>;n=<nonce>;u=<who>;mac=<hex>}: an HMAC-SHA256 with the passcode
 * over all but the MAC; {@code who} is the operator as the command line names them ({@code user@host}), logged by the
 * replica with what it did (unsigned, without a passcode: {@code <command>;u=<who>}). A replica with a passcode ({@code fts.admin.passcode_file}) runs a command only if its MAC is right,
 * it names this replica and group, its time is within {@value #WINDOW_SECONDS} s of the replica's clock, and its
 * nonce was not seen in that window (a request captured on the way can be sent neither again, nor to another replica
 * or group sharing the passcode, nor with its MAC on another command). The passcode never travels.
 * Read-only keys ({@code fts status}) stay open.
 */
public final class AdminPasscode {
    public static final ConfigKey<String> FILE = ConfigKey.optionalAbsoluteFile("fts.admin.passcode_file",
            "a file whose first line is the passcode that fts backup and fts restore must prove (an HMAC over each "
                    + "command, its time and a nonce: the passcode never travels); empty: those commands are "
                    + "accepted from anyone who reaches the probe port (a warning at start)");
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
        String file = FILE.get(props);
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

    /**
     * {@code command} as sent to replica {@code replica} of {@code group} at {@code nowMillis} with {@code nonce}, by
     * this process's operator ({@link #operator()}): signed when a passcode is configured, so that no other replica or
     * group runs it.
     */
    public String sign(String command, String group, String replica, long nowMillis, String nonce) {
        return sign(command, group, replica, nowMillis, nonce, operator());
    }

    /** {@link #sign(String, String, String, long, String)} by operator {@code who}. */
    public String sign(String command, String group, String replica, long nowMillis, String nonce, String who) {
        String by = ";u=" + clean(who);
        if (secret == null) {
            return command + by;
        }
        String body = command + ";g=" + group + ";r=" + replica + ";t=" + nowMillis + ";n=" + nonce + by;
        return body + ";mac=" + HexFormat.of().formatHex(mac(body));
    }

    /** This process's operator, as a command names them: {@code user@host}. */
    public static String operator() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown-host";
        }
        return System.getProperty("user.name", "unknown") + "@" + host;
    }

    /** {@code who} with nothing that could end its field or its line, at most 64 characters. */
    private static String clean(String who) {
        String w = who == null || who.isBlank() ? "unknown" : who.replaceAll("[;=\\s]", "_");
        return w.length() > 64 ? w.substring(0, 64) : w;
    }

    /** A command a replica may run, and who asked (as the command names them: "unknown" if it does not). */
    public record Command(String text, String who) {
    }

    /** Where a signed key's fields start, from its end; null if {@code key} is not signed. */
    private record Signed(String command, String group, String replica, String time, String nonce, String who,
                          String body, String mac) {
        static Signed parse(String key) {
            int m = key.lastIndexOf(";mac=");
            int u = m < 0 ? -1 : key.lastIndexOf(";u=", m);
            int nu = m < 0 ? -1 : key.lastIndexOf(";n=", m);
            boolean named = u > nu;   // a key signed before commands named who asked has no u field
            int n = named ? key.lastIndexOf(";n=", u) : nu;
            int t = n < 0 ? -1 : key.lastIndexOf(";t=", n);
            int r = t < 0 ? -1 : key.lastIndexOf(";r=", t);
            int g = r < 0 ? -1 : key.lastIndexOf(";g=", r);
            if (g < 0) {
                return null;
            }
            return new Signed(key.substring(0, g), key.substring(g + 3, r), key.substring(r + 3, t),
                    key.substring(t + 3, n), key.substring(n + 3, named ? u : m),
                    named ? clean(key.substring(u + 3, m)) : "unknown", key.substring(0, m), key.substring(m + 5));
        }
    }

    /** An unsigned key's command and who sent it ({@code <command>;u=<who>}, or a bare command: "unknown"). */
    private static Command unsigned(String key) {
        int u = key.lastIndexOf(";u=");
        if (u < 0 || key.indexOf('/', u) >= 0) {   // no name, or ";u=" inside a path: a bare command
            return new Command(key, "unknown");
        }
        return new Command(key.substring(0, u), clean(key.substring(u + 3)));
    }

    /**
     * The command {@code key} carries, if replica {@code replica} of {@code group} may run it at {@code nowMillis}:
     * without a passcode, any (a signed one stripped of its signature: a passcode being rolled out); with one, only
     * one signed with it for this replica and group, fresh, and not seen before.
     */
    public String verify(String key, String group, String replica, long nowMillis) throws Refused {
        return accept(key, group, replica, nowMillis).text();
    }

    /** {@link #verify}, with who asked. */
    public synchronized Command accept(String key, String group, String replica, long nowMillis) throws Refused {
        Signed s = Signed.parse(key);
        if (secret == null) {
            return s == null ? unsigned(key) : new Command(s.command(), s.who());
        }
        if (s == null) {
            throw new Refused("this replica requires the admin passcode (fts.admin.passcode_file): run the command "
                    + "with the replica's configuration (--config) or --passcode-file");
        }
        byte[] given;
        long at;
        try {
            given = HexFormat.of().parseHex(s.mac());
            at = Long.parseLong(s.time());
        } catch (IllegalArgumentException e) {
            throw new Refused("a malformed signed command");
        }
        if (!MessageDigest.isEqual(given, mac(s.body()))) {
            throw new Refused("the command's passcode is not this replica's (fts.admin.passcode_file)");
        }
        if (!s.group().equals(group) || !s.replica().equals(replica)) {
            throw new Refused("the command was signed for replica " + s.replica() + " of group " + s.group()
                    + ", not for this one (" + replica + " of " + group + ")");
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
        if (seen.putIfAbsent(s.nonce(), at) != null) {
            throw new Refused("the command's nonce was seen already: a replayed request");
        }
        return new Command(s.command(), s.who());
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
