package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.jgroups.protocols.raft.RAFT;
import org.junit.jupiter.api.Test;

/**
 * jgroups-raft 1.1.4.Final was built against JGroups 5.4.11; FTS runs it on 5.5.7 (docs/platform.md). A method or
 * field of JGroups that it calls and 5.5.7 no longer has would fail only when that code path runs, with a
 * {@code NoSuchMethodError} in production. This test reads the constant pool of every class in the jgroups-raft jar
 * on the class path and resolves every field, method and class it references in {@code org.jgroups} against the
 * JGroups on the class path, as the JVM's linker would: a version of either that breaks the link fails the build.
 */
class JGroupsRaftLinkageTest {

    private record Ref(int tag, String owner, String name, String descriptor) {
        @Override
        public String toString() {
            return owner.replace('/', '.') + (name == null ? "" : "." + name + descriptor);
        }
    }

    @Test
    void everyReferenceOfJGroupsRaftIntoJGroupsResolvesOnTheJGroupsOnTheClassPath() throws Exception {
        Path jar = Path.of(RAFT.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(jar.getFileName().toString().startsWith("jgroups-raft-"), "read from the jgroups-raft jar: " + jar);
        Set<Ref> refs = new HashSet<>();
        int classes = 0;
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : java.util.Collections.list(j.entries())) {
                if (e.getName().endsWith(".class") && !e.getName().equals("module-info.class")) {
                    try (InputStream in = j.getInputStream(e)) {
                        refs.addAll(references(new DataInputStream(in)));
                    }
                    classes++;
                }
            }
        }
        Set<String> broken = new TreeSet<>();
        int checked = 0;
        for (Ref r : refs) {
            if (!r.owner().startsWith("org/jgroups/") || r.owner().startsWith("[")) {
                continue;
            }
            checked++;
            if (!resolves(r)) {
                broken.add(r.toString());
            }
        }
        assertTrue(classes > 100 && checked > 200, classes + " classes, " + checked + " references: too few to be the jar");
        assertEquals(new TreeSet<>(), broken, "references of jgroups-raft that do not resolve on this JGroups");
    }

    /**
     * FTS's own code reaches into jgroups-raft's internals ({@link FtsRaft} overrides RAFT's protected methods and
     * reads its protected fields; {@code FtsRaftHeaders} reads package-private fields): every such reference, and
     * every other one into {@code org.jgroups}, resolves on the pinned versions.
     */
    @Test
    void everyReferenceOfThisModuleIntoJGroupsAndJGroupsRaftResolves() throws Exception {
        Path classes = Path.of(FtsRaft.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<Ref> refs = new HashSet<>();
        try (var files = java.nio.file.Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                try (InputStream in = java.nio.file.Files.newInputStream(f)) {
                    refs.addAll(references(new DataInputStream(in)));
                }
            }
        }
        Set<String> broken = new TreeSet<>();
        int checked = 0;
        for (Ref r : refs) {
            // RAFT's members FtsRaft uses are referenced through FtsRaft itself: resolved up its superclasses
            if (!(r.owner().startsWith("org/jgroups/") || r.owner().equals("org/fts/gc/raft/FtsRaft"))) {
                continue;
            }
            checked++;
            if (!resolves(r)) {
                broken.add(r.toString());
            }
        }
        assertTrue(checked > 40, checked + " references: too few");
        assertEquals(new TreeSet<>(), broken, "references of the raft binding that do not resolve");
    }

    @Test
    void theCheckItselfRefusesWhatDoesNotExist() {
        assertTrue(resolves(new Ref(10, "org/jgroups/JChannel", "connect", "(Ljava/lang/String;)Lorg/jgroups/JChannel;")));
        assertTrue(!resolves(new Ref(10, "org/jgroups/JChannel", "connect", "(Ljava/lang/String;)V")),
                "another return type is another method");
        assertTrue(!resolves(new Ref(9, "org/jgroups/JChannel", "noSuchField", "I")));
        assertTrue(!resolves(new Ref(7, "org/jgroups/NoSuchClass", null, null)));
    }

    private static boolean resolves(Ref r) {
        Class<?> owner;
        try {
            owner = Class.forName(r.owner().replace('/', '.'), false, JGroupsRaftLinkageTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        if (r.name() == null) {
            return true;
        }
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(owner));
        Set<Class<?>> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (!seen.add(c)) {
                continue;
            }
            if (r.tag() == 9) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (f.getName().equals(r.name()) && descriptor(f.getType()).equals(r.descriptor())) {
                        return true;
                    }
                }
            } else {
                List<Executable> all = new ArrayList<>(List.of(c.getDeclaredMethods()));
                all.addAll(List.of(c.getDeclaredConstructors()));
                for (Executable m : all) {
                    String name = m instanceof Constructor<?> ? "<init>" : m.getName();
                    if (name.equals(r.name()) && descriptor(m).equals(r.descriptor())) {
                        return true;
                    }
                }
            }
            if (c.getSuperclass() != null) {
                todo.add(c.getSuperclass());
            }
            todo.addAll(List.of(c.getInterfaces()));
        }
        return r.tag() != 9 && owner.isInterface() && objectHas(r);   // an interface call of Object's methods
    }

    private static boolean objectHas(Ref r) {
        for (Method m : Object.class.getDeclaredMethods()) {
            if (m.getName().equals(r.name()) && descriptor(m).equals(r.descriptor())) {
                return true;
            }
        }
        return false;
    }

    private static String descriptor(Executable m) {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            d.append(descriptor(p));
        }
        d.append(')').append(m instanceof Method method ? descriptor(method.getReturnType()) : "V");
        return d.toString();
    }

    private static String descriptor(Class<?> t) {
        if (t.isArray()) {
            return t.getName().replace('.', '/');
        }
        if (!t.isPrimitive()) {
            return "L" + t.getName().replace('.', '/') + ";";
        }
        return switch (t.getName()) {
            case "int" -> "I";
            case "long" -> "J";
            case "boolean" -> "Z";
            case "byte" -> "B";
            case "char" -> "C";
            case "short" -> "S";
            case "float" -> "F";
            case "double" -> "D";
            default -> "V";
        };
    }

    /** The class, field and method references in one class file's constant pool (JVMS 4.4). */
    private static List<Ref> references(DataInputStream in) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        int[] tags = new int[count];
        int[] a = new int[count];
        int[] b = new int[count];
        String[] utf = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1 -> utf[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;   // takes two entries
                }
                case 7, 8, 16, 19, 20 -> a[i] = in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> {
                    a[i] = in.readUnsignedShort();
                    b[i] = in.readUnsignedShort();
                }
                case 15 -> {
                    in.readUnsignedByte();
                    a[i] = in.readUnsignedShort();
                }
                default -> throw new IOException("constant pool tag " + tag + " at " + i);
            }
        }
        List<Ref> refs = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            if (tags[i] == 7) {
                refs.add(new Ref(7, utf[a[i]], null, null));
            } else if (tags[i] == 9 || tags[i] == 10 || tags[i] == 11) {
                int nat = b[i];
                refs.add(new Ref(tags[i], utf[a[a[i]]], utf[a[nat]], utf[b[nat]]));
            }
        }
        return refs;
    }
}
