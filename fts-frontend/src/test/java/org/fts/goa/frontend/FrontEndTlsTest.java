package org.fts.goa.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.fts.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adaptor's listener takes its TLS settings from JacORB's server keys (docs/security.md): what it cannot
 * honour, or cannot read, stops the start naming the key (TlsProcessTest runs TLS end to end on it).
 */
class FrontEndTlsTest {
    @TempDir
    Path dir;

    private Map<String, String> settings() {
        Map<String, String> m = new HashMap<>();
        m.put("jacorb.security.keystore", dir.resolve("none.jks").toString());
        m.put("jacorb.security.keystore_password", "secret");
        m.put("jacorb.security.ssl.server.supported_options", "60");
        m.put("jacorb.security.ssl.server.required_options", "20");
        m.put("jacorb.security.ssl.server.trust_manager", "");   // JacORB's own default: empty, so unset
        return m;
    }

    private String refusedKey(Map<String, String> m) {
        return assertThrows(ConfigException.class, () -> FrontEndTls.fromJacorb(m::get)).key();
    }

    @Test
    void aMissingOrUnreadableKeyStoreIsRefusedNamingItsKey() {
        Map<String, String> m = settings();
        assertEquals("jacorb.security.keystore", refusedKey(m), "a key store that is not there");
        m.remove("jacorb.security.keystore");
        assertEquals("jacorb.security.keystore", refusedKey(m), "no key store");
        m = settings();
        m.put("jacorb.security.keystore_password", " ");
        assertEquals("jacorb.security.keystore_password", refusedKey(m), "no password");
    }

    @Test
    void malformedOptionsAreRefusedNamingTheKey() {
        Map<String, String> m = settings();
        m.put("jacorb.security.ssl.server.required_options", "0x20z");
        assertEquals("jacorb.security.ssl.server.required_options", refusedKey(m));
    }

    @Test
    void whatOnlyJacorbsListenerOffersIsRefusedNamingTheKey() {
        for (String[] kv : new String[][] {{"jacorb.security.support_crl", "on"},
                {"jacorb.security.crl_file", "/etc/fts/crl.pem"},
                {"jacorb.security.ssl.server.trust_manager", "com.example.Trust"},
                {"jacorb.security.keystore_provider", "SunPKCS11-NSS"},
                {"jacorb.security.keystore_type", "PKCS11"}}) {
            Map<String, String> m = settings();
            m.put(kv[0], kv[1]);
            assertEquals(kv[0], refusedKey(m), kv[0] + "=" + kv[1]);
        }
    }
}
