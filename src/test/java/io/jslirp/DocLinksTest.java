package io.jslirp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents hold together: every relative link of README.md and docs/*.md reaches a file of
 * the repository (and, into a Markdown file, a heading of it), and src/main sends its reader to
 * documents of the repository only.
 */
class DocLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.*?) *#* *$");
    private static final Pattern DOC_IN_CODE = Pattern.compile("docs/[A-Za-z0-9_.-]+\\.md");

    /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The anchors of a Markdown text's headings, a repeated one numbered as GitHub does (x, x-1, x-2). */
    static Set<String> anchors(List<String> lines) {
        Set<String> all = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.startsWith("```")) fenced = !fenced;
            Matcher h = HEADING.matcher(line);
            if (fenced || !h.matches()) continue;
            String a = anchor(h.group(1));
            int n = seen.merge(a, 1, Integer::sum);
            all.add(n == 1 ? a : a + "-" + (n - 1));
        }
        return all;
    }

    /** The links of the Markdown file doc (in the repository at root) that lead nowhere. */
    static List<String> brokenLinks(Path root, Path doc) throws IOException {
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(Files.readString(doc));
        while (m.find()) {
            String link = m.group(1);
            if (link.matches("^[a-z]+:.*")) continue; // https:, mailto:
            int hash = link.indexOf('#');
            String file = hash < 0 ? link : link.substring(0, hash);
            Path target = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
            if (!target.startsWith(root) || !Files.exists(target)) broken.add(root.relativize(doc) + ": " + link);
            else if (hash >= 0 && target.toString().endsWith(".md")
                    && !anchors(Files.readAllLines(target)).contains(link.substring(hash + 1)))
                broken.add(root.relativize(doc) + ": " + link + " (no such heading)");
        }
        return broken;
    }

    @Test
    void everyRelativeLinkOfTheDocumentsLeadsSomewhere() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        List<Path> docs = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        assertThat(docs).contains(root.resolve("docs/design.md"));
        List<String> broken = new ArrayList<>();
        for (Path d : docs) broken.addAll(brokenLinks(root, d));
        assertThat(broken).isEmpty();
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsFound() throws IOException {
        Path root = Files.createTempDirectory("doclinks").toAbsolutePath();
        try {
            Path doc = Files.createDirectories(root.resolve("docs")).resolve("a.md");
            Files.writeString(root.resolve("README.md"), "# Read me\n## Two words, and more\n## Two words, and more\n");
            Files.writeString(doc, "[ok](../README.md#two-words-and-more) [ok](../README.md#two-words-and-more-1) [ok](#here)"
                    + " [no](../README.md#nowhere) [no](b.md) [web](https://example.org/x#y) [no](#not-a-heading)\n# Here\n```\n# not a heading\n```\n");
            assertThat(brokenLinks(root, doc)).containsExactly("docs/a.md: ../README.md#nowhere (no such heading)", "docs/a.md: b.md",
                    "docs/a.md: #not-a-heading (no such heading)");
        } finally {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
    }

    /** Comments send the reader to the repository's documents, which exist, and to nothing outside it. */
    @Test
    void sourcesNameOnlyDocumentsOfTheRepository() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        List<String> wrong = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root.resolve("src/main"))) {
            for (Path f : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String text = Files.readString(f);
                Matcher m = DOC_IN_CODE.matcher(text);
                while (m.find()) if (!Files.exists(root.resolve(m.group()))) wrong.add(root.relativize(f) + ": " + m.group());
                for (String outside : List.of("DESIGN.md", "/work/", "design notes"))
                    if (text.contains(outside)) wrong.add(root.relativize(f) + ": " + outside);
            }
        }
        assertThat(wrong).isEmpty();
    }
}
