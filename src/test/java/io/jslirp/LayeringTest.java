package io.jslirp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of docs/design.md, checked against the compiled classes of src/main: the table of
 * its "Layers" section lists the packages bottom first, each with what it may use; a package that
 * uses one it may not, or one above it, fails the build, and so do two classes of different
 * packages that use each other. The list is read from the document, so the two cannot drift.
 */
class LayeringTest {
    private static final String ROOT = "io.jslirp";
    private static final Path DESIGN = Path.of("docs/design.md");
    /** A row of the layers table: | `name` | what it holds | what it may use |. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z]+)`\\s*\\|[^|]*\\|([^|]*)\\|\\s*$");
    private static final Pattern NAME = Pattern.compile("`([a-z]+)`");
    private static final String ANY_BELOW = "any layer below";

    private static JavaClasses classes;

    @BeforeAll
    static void importMain() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT);
    }

    /** A layer of the document: its package (short name) and the packages it may use. */
    record Layer(String name, Set<String> mayUse) {}

    /** The layers table of docs/design.md, bottom first; what a layer may use is resolved against those before it. */
    static List<Layer> declaredLayers(List<String> lines) {
        List<Layer> layers = new ArrayList<>();
        boolean inSection = false;
        for (String line : lines) {
            if (line.startsWith("## ")) inSection = line.equals("## Layers");
            if (!inSection) continue;
            Matcher row = ROW.matcher(line);
            if (!row.matches()) continue;
            Set<String> below = new LinkedHashSet<>();
            for (Layer l : layers) below.add(l.name());
            String cell = row.group(2);
            Set<String> mayUse = new LinkedHashSet<>();
            if (cell.contains(ANY_BELOW)) mayUse.addAll(below);
            Matcher name = NAME.matcher(cell);
            while (name.find()) {
                if (!below.contains(name.group(1)))
                    throw new IllegalArgumentException("layer " + row.group(1) + " may use " + name.group(1) + ", which is not below it");
                mayUse.add(name.group(1));
            }
            layers.add(new Layer(row.group(1), mayUse));
        }
        return layers;
    }

    private static Map<String, Layer> layers() throws IOException {
        Map<String, Layer> byName = new LinkedHashMap<>();
        for (Layer l : declaredLayers(Files.readAllLines(DESIGN))) {
            assertThat(byName.put(l.name(), l)).as("layer %s listed twice", l.name()).isNull();
        }
        assertThat(byName).as("the layers table of %s", DESIGN).isNotEmpty();
        return byName;
    }

    /** The package of c below io.jslirp ("sys" for io.jslirp.sys.Epoll), or "" for io.jslirp itself and other roots. */
    private static String layerOf(JavaClass c) {
        String p = c.getBaseComponentType().getPackageName();
        if (!p.startsWith(ROOT + ".")) return p.equals(ROOT) ? "" : null;
        String rest = p.substring(ROOT.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    /** The top-level class c is written in (a nested class's uses are its file's). */
    private static JavaClass topLevel(JavaClass c) {
        JavaClass t = c.getBaseComponentType();
        while (t.getEnclosingClass().isPresent()) t = t.getEnclosingClass().get();
        return t;
    }

    @Test
    void everyPackageIsAListedLayer() throws IOException {
        Map<String, Layer> layers = layers();
        Set<String> unlisted = new TreeSet<>(), present = new TreeSet<>();
        for (JavaClass c : classes) if (!layers.containsKey(layerOf(c))) unlisted.add(c.getPackageName()); else present.add(layerOf(c));
        assertThat(unlisted).as("packages not in the layers table of %s", DESIGN).isEmpty();
        assertThat(present).as("layers of %s with no package", DESIGN).containsAll(layers.keySet());
    }

    @Test
    void noPackageUsesOneItMayNot() throws IOException {
        Map<String, Layer> layers = layers();
        Set<String> violations = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = layerOf(c);
            Layer layer = layers.get(from);
            if (layer == null) continue; // everyPackageIsAListedLayer says so
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = layerOf(d.getTargetClass());
                if (to == null || to.equals(from) || layer.mayUse().contains(to)) continue;
                violations.add(from + " -> " + to + ": " + topLevel(c).getName() + " uses " + topLevel(d.getTargetClass()).getName());
            }
        }
        assertThat(violations).as("uses that %s's layers table does not allow", DESIGN).isEmpty();
    }

    /** Pairs of classes of different packages (packageOf) that each use the other, as "a <-> b", a before b. */
    static Set<String> crossPackageCycles(Map<String, Set<String>> uses, Map<String, String> packageOf) {
        Set<String> cycles = new TreeSet<>();
        uses.forEach((a, targets) -> {
            for (String b : targets) {
                String pb = packageOf.get(b);
                if (pb == null || pb.equals(packageOf.get(a))) continue;
                if (uses.getOrDefault(b, Set.of()).contains(a)) cycles.add(a.compareTo(b) < 0 ? a + " <-> " + b : b + " <-> " + a);
            }
        });
        return cycles;
    }

    @Test
    void noTwoClassesOfDifferentPackagesUseEachOther() {
        Map<String, Set<String>> uses = new LinkedHashMap<>();
        Map<String, String> packageOf = new LinkedHashMap<>();
        for (JavaClass c : classes) {
            JavaClass from = topLevel(c);
            packageOf.put(from.getName(), from.getPackageName());
            Set<String> targets = uses.computeIfAbsent(from.getName(), k -> new TreeSet<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass to = topLevel(d.getTargetClass());
                if (!to.getName().equals(from.getName())) targets.add(to.getName());
            }
        }
        assertThat(uses).as("classes imported from src/main").hasSizeGreaterThan(100);
        assertThat(crossPackageCycles(uses, packageOf)).as("classes of different packages that use each other").isEmpty();
    }

    @Test
    void aCycleIsTwoClassesOfDifferentPackagesThatUseEachOther() {
        Map<String, Set<String>> uses = Map.of("a.X", Set.of("b.Y", "a.Z"), "b.Y", Set.of("a.X"), "a.Z", Set.of("a.X"), "c.W", Set.of("a.X"));
        Map<String, String> packageOf = Map.of("a.X", "a", "a.Z", "a", "b.Y", "b", "c.W", "c");
        assertThat(crossPackageCycles(uses, packageOf)).containsExactly("a.X <-> b.Y");
    }

    /** The reading of the table itself, so that a malformed document cannot pass as an empty rule. */
    @Test
    void theTableIsReadBottomFirstAndRefusesAUseOfALayerAbove() {
        List<String> doc = List.of("# x", "## Layers", "| layer | holds | may use |", "| --- | --- | --- |",
                "| `wire` | codecs | nothing of jslirp |", "| `sys` | syscalls | `wire` |", "| `cli` | the command | any layer below |",
                "## Other", "| `stray` | not a layer | `cli` |");
        assertThat(declaredLayers(doc)).containsExactly(new Layer("wire", Set.of()), new Layer("sys", Set.of("wire")),
                new Layer("cli", Set.of("wire", "sys")));
        List<String> upward = List.of("## Layers", "| `wire` | codecs | `sys` |", "| `sys` | syscalls | nothing |");
        assertThatThrownBy(() -> declaredLayers(upward)).hasMessageContaining("not below");
    }
}
