package org.fts.jgroups;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.List;
import java.util.Properties;

import javax.crypto.SecretKey;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.jgroups.JChannel;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.stack.ProtocolStack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encrypted group traffic (docs/security.md): JGroups' {@code SYM_ENCRYPT}, inserted directly below NAKACK2,
 * with the group's AES key from a keystore. A process without the key cannot join (its join request cannot be
 * decrypted), cannot read the group's messages, and cannot inject any: what it sends is dropped before
 * NAKACK2, so it never reaches the total order. The keystore's password comes from a file or from the
 * environment ({@value #PASSWORD_ENV}), never from the command line or the stack XML.
 *
 * <p>{@code fts.jgroups.encrypt=auto} (the default) encrypts when a keystore is configured. Without one it
 * runs in the clear only on a loopback address; on any other address the replica refuses to start, naming the
 * key, unless {@code none} says so explicitly.
 */
public final class GroupSecurity {
    /** The environment variable read for the keystore's password when no password file is configured. */
    public static final String PASSWORD_ENV = "FTS_KEYSTORE_PASSWORD";

    public static final ConfigKey<String> ENCRYPT = ConfigKey.choice("fts.jgroups.encrypt", "auto",
            List.of("auto", "none", "sym"), "group traffic: sym encrypts it with the keystore's secret key "
                    + "(SYM_ENCRYPT); none sends it in the clear; auto is sym with a keystore, none without one on "
                    + "a loopback bind_addr, and a start-up error on any other address");
    public static final ConfigKey<String> KEYSTORE = ConfigKey.optionalString("fts.jgroups.keystore",
            "PKCS12 or JCEKS keystore holding the group's AES secret key, the same file on every replica");
    public static final ConfigKey<String> KEYSTORE_PASSWORD_FILE = ConfigKey.optionalString(
            "fts.jgroups.keystore_password_file", "file whose first line is the keystore's password (and the "
                    + "key's); unset: the environment variable " + PASSWORD_ENV);
    public static final ConfigKey<String> KEY_ALIAS = ConfigKey.string("fts.jgroups.key_alias", "fts",
            "alias of the group's secret key in the keystore");

    static final List<ConfigKey<?>> KEYS = List.of(ENCRYPT, KEYSTORE, KEYSTORE_PASSWORD_FILE, KEY_ALIAS);

    private static final Logger LOG = LoggerFactory.getLogger(GroupSecurity.class);

    private GroupSecurity() {
    }

    /**
     * The group's secret key as the configuration asks for it, or null for traffic in the clear.
     *
     * @throws ConfigException naming the key: no keystore where one is needed, an unreadable keystore or
     *                         password, no secret key under the alias
     */
    public static SecretKey groupKey(Properties config) {
        String mode = ENCRYPT.get(config);
        String keystore = KEYSTORE.get(config);
        String bind = JGroupsStack.BIND_ADDR.get(config);
        if (mode.equals("none") || (mode.equals("auto") && keystore.isEmpty() && loopback(bind))) {
            if (!loopback(bind)) {
                LOG.warn("group traffic is NOT encrypted on {} (fts.jgroups.encrypt=none): whoever reaches this "
                        + "network can join the group, read every request and inject ordered messages", bind);
            }
            return null;
        }
        if (keystore.isEmpty()) {
            throw new ConfigException(mode.equals("sym") ? KEYSTORE.name() : ENCRYPT.name(), mode.equals("sym")
                    ? "is not set, and fts.jgroups.encrypt=sym needs the group's key"
                    : "is auto, and the group binds to " + bind + ", which is not a loopback address: set "
                            + KEYSTORE.name() + " (the group's secret key), or fts.jgroups.encrypt=none to run "
                            + "in the clear on purpose");
        }
        char[] password = password(config);
        try {
            KeyStore ks = KeyStore.getInstance(Path.of(keystore).toFile(), password);
            Key key = ks.getKey(KEY_ALIAS.get(config), password);
            if (!(key instanceof SecretKey secret)) {
                throw new ConfigException(KEY_ALIAS.name(), "names no secret key in " + keystore + " ("
                        + (key == null ? "no entry" : key.getAlgorithm() + " " + key.getClass().getSimpleName())
                        + "); create one with keytool -genseckey -keyalg AES -keysize 256");
            }
            LOG.info("group traffic encrypted: SYM_ENCRYPT with the {} key '{}' of {}", secret.getAlgorithm(),
                    KEY_ALIAS.get(config), keystore);
            return secret;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(KEYSTORE.name(), "names " + keystore + ", which cannot be read with the "
                    + "configured password: " + e.getMessage());
        } finally {
            java.util.Arrays.fill(password, '\0');
        }
    }

    private static char[] password(Properties config) {
        String file = KEYSTORE_PASSWORD_FILE.get(config);
        if (!file.isEmpty()) {
            try {
                List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
                if (lines.isEmpty() || lines.get(0).isEmpty()) {
                    throw new ConfigException(KEYSTORE_PASSWORD_FILE.name(), "names " + file + ", which is empty");
                }
                return lines.get(0).toCharArray();
            } catch (IOException e) {
                throw new ConfigException(KEYSTORE_PASSWORD_FILE.name(), "names " + file + ", which cannot be read: "
                        + e);
            }
        }
        String env = System.getenv(PASSWORD_ENV);
        if (env == null || env.isEmpty()) {
            throw new ConfigException(KEYSTORE_PASSWORD_FILE.name(), "is not set, and neither is the environment "
                    + "variable " + PASSWORD_ENV + ": the keystore's password comes from one of them");
        }
        return env.toCharArray();
    }

    private static boolean loopback(String address) {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (IOException e) {
            return false;   // unresolvable: JGroups will say so; treat it as a network address
        }
    }

    /**
     * Creates a group key: a PKCS12 keystore at {@code store} holding a fresh AES-256 key under {@code alias},
     * protected by {@code password}, readable by its owner only where the file system supports it. For demos,
     * benchmarks and tests; {@code keytool -genseckey} does the same (docs/security.md).
     */
    public static void createKeystore(Path store, char[] password, String alias) throws GeneralSecurityException,
            IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        javax.crypto.KeyGenerator aes = javax.crypto.KeyGenerator.getInstance("AES");
        aes.init(256);
        ks.setEntry(alias, new KeyStore.SecretKeyEntry(aes.generateKey()), new KeyStore.PasswordProtection(password));
        Files.createDirectories(store.toAbsolutePath().getParent());
        try (java.io.OutputStream out = Files.newOutputStream(store)) {
            ks.store(out, password);
        }
        try {
            Files.setPosixFilePermissions(store, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: its own access rules apply
        }
    }

    /** Puts SYM_ENCRYPT with {@code key} directly below NAKACK2 in {@code channel}'s stack (before connect). */
    public static void install(JChannel channel, SecretKey key) throws Exception {
        ProtocolStack stack = channel.getProtocolStack();
        if (stack.findProtocol(SYM_ENCRYPT.class) != null) {
            throw new ConfigException(ENCRYPT.name(), "is set, but the stack XML has its own SYM_ENCRYPT: use one");
        }
        SYM_ENCRYPT sym = new SYM_ENCRYPT();
        sym.setSecretKey(key);
        stack.insertProtocol(sym, ProtocolStack.Position.BELOW, NAKACK2.class);
        sym.init();
    }
}
