package org.fts.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** Group keys made for one test (nothing secret is committed): a PKCS12 keystore and its password file. */
public final class TestKeys {
    private TestKeys() {
    }

    /**
     * Writes {@code dir/name.p12}, holding a fresh AES-256 key under alias {@code fts}, and {@code dir/name.pw};
     * returns the {@code fts.jgroups.*} properties that select them.
     */
    public static Properties groupKey(Path dir, String name) throws Exception {
        String password = "pw-" + java.util.UUID.randomUUID();
        Path store = dir.resolve(name + ".p12");
        Path passwordFile = dir.resolve(name + ".pw");
        org.fts.jgroups.GroupSecurity.createKeystore(store, password.toCharArray(), "fts");
        Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
        Properties p = new Properties();
        p.setProperty("fts.jgroups.encrypt", "sym");
        p.setProperty("fts.jgroups.keystore", store.toString());
        p.setProperty("fts.jgroups.keystore_password_file", passwordFile.toString());
        return p;
    }
}
