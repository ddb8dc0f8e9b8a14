package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import org.fts.config.ConfigException;
import org.fts.testing.Recorder;
import org.fts.testing.TestKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Encrypted group traffic on real JGroups channels (SYM_ENCRYPT, docs/security.md): a process with the group's
 * name but not its key cannot join, and nothing it broadcasts is delivered to the group. Without encryption the
 * same process joins and its broadcasts are delivered: the threat the key closes.
 */
class EncryptedGroupTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final List<GroupChannel> channels = java.util.Collections.synchronizedList(new ArrayList<>());
    private final String group = "sec-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void close() {
        synchronized (channels) {
            channels.forEach(GroupChannel::close);
        }
    }

    private GroupChannel join(String name, Properties security, Recorder r) {
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        p.setProperty("fts.jgroups.stack", "udp");
        p.setProperty("fts.group.size", "0");   // every view primary: the test is about who gets in
        p.putAll(security);
        GroupChannel c = GroupChannels.create(p, name);
        channels.add(c);
        c.join(group, r);
        return c;
    }

    private static Set<String> names(View v) {
        return v.members().stream().map(MemberId::name).collect(Collectors.toSet());
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void withoutTheKeyAProcessCannotJoinAndNothingItSendsIsDelivered(@TempDir Path dir) throws Exception {
        Properties key = TestKeys.groupKey(dir, "group");
        List<Recorder> members = List.of(new Recorder(), new Recorder(), new Recorder());
        GroupChannel a = join("a", key, members.get(0));
        join("b", key, members.get(1));
        join("c", key, members.get(2));
        for (Recorder r : members) {
            r.awaitView(v -> v.members().size() == 3, WAIT, "the three keyed members form the group");
        }
        a.abcast(text("one"));

        Recorder plain = new Recorder();
        Recorder otherKey = new Recorder();
        Properties none = new Properties();
        none.setProperty("fts.jgroups.encrypt", "none");
        java.util.concurrent.atomic.AtomicReference<GroupChannel> plainChannel =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(() -> plainChannel.set(join("rogue-plain", none, plain)));
        t.start();   // both rogues try to join at once: each gives up on the group after JGroups' join attempts
        GroupChannel wrongKey = join("rogue-key", TestKeys.groupKey(dir, "other"), otherKey);
        t.join(WAIT.toMillis());
        assertTrue(plainChannel.get() != null, "the plain rogue's join returned");
        assertEquals(Set.of("rogue-key"), names(otherKey.lastView()), "a process with another key is alone");
        assertEquals(Set.of("rogue-plain"), names(plain.lastView()), "a process without a key is alone");
        wrongKey.abcast(text("forged"));
        plainChannel.get().abcast(text("forged-plain"));
        otherKey.awaitDelivered(1, WAIT);   // the rogue's broadcasts went out (delivered in its own group)

        a.abcast(text("two"));
        for (Recorder r : members) {
            r.awaitDelivered(2, WAIT);
            assertEquals(List.of("one", "two"), r.delivered().stream().map(Recorder.Delivery::text).toList());
            assertEquals(Set.of("a", "b", "c"), names(r.lastView()), "no rogue in the group's view");
        }
    }

    @Test
    void inTheClearTheSameProcessJoinsAndItsBroadcastsAreDelivered() {
        Properties none = new Properties();
        none.setProperty("fts.jgroups.encrypt", "none");
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        join("a", none, a);
        join("b", none, b);
        Recorder rogue = new Recorder();
        GroupChannel r = join("rogue", none, rogue);
        a.awaitView(v -> v.members().size() == 3, WAIT, "the rogue joins a group in the clear");
        r.abcast(text("forged"));
        a.awaitDelivered(1, WAIT);
        assertEquals("forged", a.delivered().get(0).text(), "and its broadcast is ordered like any other");
    }

    @Test
    void theModeAndTheKeystoreAreCheckedAtStartNamingTheKey(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        assertNull(org.fts.jgroups.GroupSecurityAccess.groupKey(p), "auto on loopback, no keystore: in the clear");
        p.setProperty("fts.jgroups.bind_addr", "10.11.12.13");
        ConfigException e = assertThrows(ConfigException.class, () -> org.fts.jgroups.GroupSecurityAccess.groupKey(p));
        assertEquals("fts.jgroups.encrypt", e.key());
        p.setProperty("fts.jgroups.encrypt", "none");
        assertNull(org.fts.jgroups.GroupSecurityAccess.groupKey(p), "none on purpose: in the clear, with a warning");

        Properties sym = new Properties();
        sym.setProperty("fts.jgroups.encrypt", "sym");
        assertEquals("fts.jgroups.keystore",
                assertThrows(ConfigException.class, () -> org.fts.jgroups.GroupSecurityAccess.groupKey(sym)).key());

        Properties key = TestKeys.groupKey(dir, "k");
        assertTrue(org.fts.jgroups.GroupSecurityAccess.groupKey(key) != null);
        Properties wrongAlias = new Properties();
        wrongAlias.putAll(key);
        wrongAlias.setProperty("fts.jgroups.key_alias", "nope");
        assertEquals("fts.jgroups.key_alias", assertThrows(ConfigException.class,
                () -> org.fts.jgroups.GroupSecurityAccess.groupKey(wrongAlias)).key());
        Files.writeString(Path.of(key.getProperty("fts.jgroups.keystore_password_file")), "wrong\n");
        assertEquals("fts.jgroups.keystore", assertThrows(ConfigException.class,
                () -> org.fts.jgroups.GroupSecurityAccess.groupKey(key)).key());
    }
}
