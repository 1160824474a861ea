#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# bench/clang_big.py N — prints a C++17 file of N namespaces for
# bench/clang_hour.sh: each a distinct key type put through the standard
# containers and algorithms (sort, map, unordered_map, set, variant and
# visit, std::function, ostringstream, unique_ptr trees) and a recursive
# template of depth 3 to 19, so that every namespace instantiates its own
# templates: a compile whose time and whose distinct call stacks in the
# compiler grow with N.
import sys

n = int(sys.argv[1])
print('''#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>
template <int K, typename T> struct fold { static T f(T x) { return fold<K - 1, T>::f(x) * 3 + K; } };
template <typename T> struct fold<0, T> { static T f(T x) { return x; } };''')
for i in range(n):
    k = i % 17 + 3
    print(f'''namespace n{i} {{
struct key {{ int a; double b; std::string c;
  bool operator<(const key &o) const {{ return a != o.a ? a < o.a : c < o.c; }}
  bool operator==(const key &o) const {{ return a == o.a && c == o.c; }} }};
struct hash {{ size_t operator()(const key &k) const {{ return std::hash<std::string>()(k.c) ^ (size_t)k.a * {i + 7}u; }} }};
using var = std::variant<int, key, std::string, std::vector<key>>;
struct node {{ key k; std::unique_ptr<node> l, r; std::optional<var> v; }};
static int depth(const node *p) {{ return p ? 1 + std::max(depth(p->l.get()), depth(p->r.get())) : 0; }}
int work(std::vector<key> &v, int seed) {{
  std::sort(v.begin(), v.end());
  std::map<key, std::vector<std::string>> m;
  std::unordered_map<key, int, hash> h;
  std::set<std::string> s;
  for (auto &x : v) {{ m[x].push_back(x.c + std::to_string(seed)); h[x] += x.a; s.insert(x.c); }}
  std::vector<var> vs{{var{{seed}}, var{{v.empty() ? key{{}} : v[0]}}, var{{std::string("x{i}")}}, var{{v}}}};
  int t = 0;
  for (auto &x : vs) t += std::visit([&](auto &&y) -> int {{
      using Y = std::decay_t<decltype(y)>;
      if constexpr (std::is_same_v<Y, int>) return y * {k};
      else if constexpr (std::is_same_v<Y, key>) return y.a + (int)y.b;
      else if constexpr (std::is_same_v<Y, std::string>) return (int)y.size();
      else return (int)y.size() * 2; }}, x);
  std::function<int(int)> g = [&](int z) {{ return z > 0 ? g(z - 1) + (int)m.size() : (int)h.size(); }};
  std::ostringstream os; os << t << s.size() << g(seed % {k});
  auto root = std::make_unique<node>(); root->l = std::make_unique<node>(); root->v = vs[1];
  return fold<{k}, int>::f(t) + (int)os.str().size() + depth(root.get());
}}
}}''')
print('int work_all(int seed) {\n int t = 0;')
for i in range(0, n, max(1, n // 50)):
    print(f' {{ std::vector<n{i}::key> v; v.push_back({{seed, 1.0, "a"}}); t += n{i}::work(v, seed); }}')
print(' return t;\n}')
