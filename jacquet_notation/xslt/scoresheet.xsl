<?xml version="1.0" encoding="UTF-8"?>
<!--
  The score sheet: a jacquet-notation XML document (urn:jacquet-notation:games:1) as one HTML
  page, a section per game: its tags, its comments, its turns in two columns (White, Black) with
  annotations, comments and variations, the result, and any error found.

  XSLT 1.0, so that lxml (libxslt) applies it with no extension. Every value from the records is
  written as text, never as markup, so a tag holding "<script>" shows as those characters.
-->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:j="urn:jacquet-notation:games:1"
                exclude-result-prefixes="j">

  <xsl:output method="html" encoding="UTF-8" indent="yes"
              doctype-system="about:legacy-compat"/>

  <xsl:template match="/j:games">
    <html lang="en">
      <head>
        <title>
          <xsl:text>Jacquet score sheets (</xsl:text>
          <xsl:value-of select="count(j:game)"/>
          <xsl:text> games)</xsl:text>
        </title>
        <style>
          body { font-family: Georgia, serif; margin: 2em auto; max-width: 56em; color: #222; }
          section.game { border-top: 2px solid #6b4226; margin-top: 2em; padding-top: 1em; }
          table { border-collapse: collapse; margin: 0.5em 0; }
          th, td { padding: 0.15em 0.6em; vertical-align: top; text-align: left; }
          table.tags th { font-weight: normal; color: #6b4226; }
          table.turns td, table.turns th { border-bottom: 1px solid #ddd; }
          table.turns td.turn { text-align: right; color: #888; }
          .dice { font-weight: bold; }
          .comment { font-style: italic; color: #555; }
          .variation { color: #555; font-size: 0.9em; }
          .illegal { background: #fde2e2; }
          .result { font-size: 1.2em; font-weight: bold; }
          .status-invalid, .status-unreadable { color: #a00; }
          pre.source { background: #f6f6f6; padding: 0.5em; white-space: pre-wrap; }
        </style>
      </head>
      <body>
        <h1>Jacquet score sheets</h1>
        <xsl:apply-templates select="j:game"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="j:game">
    <section class="game status-{@status}" id="game-{position()}">
      <h2>
        <xsl:call-template name="tag-or-unknown"><xsl:with-param name="name" select="'White'"/></xsl:call-template>
        <xsl:text> v </xsl:text>
        <xsl:call-template name="tag-or-unknown"><xsl:with-param name="name" select="'Black'"/></xsl:call-template>
      </h2>
      <p class="source">
        <xsl:if test="@file">
          <xsl:value-of select="@file"/>
          <xsl:text>, </xsl:text>
        </xsl:if>
        <xsl:text>game </xsl:text>
        <xsl:value-of select="@number"/>
        <xsl:text> · rules: </xsl:text>
        <xsl:value-of select="j:rules/@name"/>
        <xsl:text> · </xsl:text>
        <span class="status"><xsl:value-of select="@status"/></span>
      </p>
      <xsl:if test="j:tags/j:tag">
        <table class="tags">
          <xsl:for-each select="j:tags/j:tag">
            <tr>
              <th scope="row"><xsl:value-of select="@name"/></th>
              <td><xsl:value-of select="."/></td>
            </tr>
          </xsl:for-each>
        </table>
      </xsl:if>
      <xsl:for-each select="j:comment">
        <p class="comment"><xsl:value-of select="."/></p>
      </xsl:for-each>
      <xsl:if test="j:plays/j:play">
        <table class="turns">
          <thead>
            <tr><th>Turn</th><th>White</th><th>Black</th></tr>
          </thead>
          <tbody>
            <!-- A row per turn: White's play and Black's play of the same turn side by side;
                 a Black play with no White play before it in its turn gets an empty White cell. -->
            <xsl:for-each select="j:plays/j:play">
              <xsl:variable name="turn" select="@turn"/>
              <xsl:choose>
                <xsl:when test="@side = 'white'">
                  <tr>
                    <td class="turn"><xsl:value-of select="$turn"/></td>
                    <td class="white"><xsl:apply-templates select="." mode="cell"/></td>
                    <td class="black">
                      <xsl:apply-templates mode="cell"
                          select="following-sibling::j:play[1][@side = 'black' and @turn = $turn]"/>
                    </td>
                  </tr>
                </xsl:when>
                <xsl:when test="not(preceding-sibling::j:play[1][@side = 'white' and @turn = $turn])">
                  <tr>
                    <td class="turn"><xsl:value-of select="$turn"/></td>
                    <td class="white"></td>
                    <td class="black"><xsl:apply-templates select="." mode="cell"/></td>
                  </tr>
                </xsl:when>
              </xsl:choose>
            </xsl:for-each>
          </tbody>
        </table>
      </xsl:if>
      <p class="result">
        <xsl:text>Result: </xsl:text>
        <xsl:choose>
          <xsl:when test="j:result"><xsl:value-of select="j:result"/></xsl:when>
          <xsl:otherwise>none written</xsl:otherwise>
        </xsl:choose>
        <xsl:if test="j:outcome/@computed-result and j:outcome/@computed-result != j:result">
          <xsl:text> (by the rules: </xsl:text>
          <xsl:value-of select="j:outcome/@computed-result"/>
          <xsl:text>)</xsl:text>
        </xsl:if>
      </p>
      <xsl:if test=".//j:error">
        <ul class="errors">
          <xsl:for-each select=".//j:error">
            <li>
              <xsl:if test="@line">
                <xsl:text>line </xsl:text>
                <xsl:value-of select="@line"/>
                <xsl:if test="@column">
                  <xsl:text>, column </xsl:text>
                  <xsl:value-of select="@column"/>
                </xsl:if>
                <xsl:text>: </xsl:text>
              </xsl:if>
              <xsl:value-of select="j:message"/>
            </li>
          </xsl:for-each>
        </ul>
      </xsl:if>
      <xsl:if test="@status = 'unreadable' and j:source-text">
        <pre class="source"><xsl:value-of select="j:source-text"/></pre>
      </xsl:if>
    </section>
  </xsl:template>

  <xsl:template name="tag-or-unknown">
    <xsl:param name="name"/>
    <xsl:choose>
      <xsl:when test="j:tags/j:tag[@name = $name]">
        <xsl:value-of select="j:tags/j:tag[@name = $name]"/>
      </xsl:when>
      <xsl:otherwise>?</xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- One play in its cell: comments before it, the dice and moves, the annotation and glyphs,
       comments after it, and its variations. -->
  <xsl:template match="j:play" mode="cell">
    <xsl:for-each select="j:comment-before">
      <span class="comment"><xsl:value-of select="."/></span>
      <xsl:text> </xsl:text>
    </xsl:for-each>
    <span>
      <xsl:attribute name="class">
        <xsl:text>play</xsl:text>
        <xsl:if test="j:error"> illegal</xsl:if>
      </xsl:attribute>
      <xsl:if test="j:error">
        <xsl:attribute name="title"><xsl:value-of select="j:error/j:message"/></xsl:attribute>
      </xsl:if>
      <xsl:apply-templates select="." mode="text"/>
    </span>
    <xsl:for-each select="j:comment">
      <xsl:text> </xsl:text>
      <span class="comment"><xsl:value-of select="."/></span>
    </xsl:for-each>
    <xsl:for-each select="j:variation">
      <div class="variation">
        <xsl:text>(</xsl:text>
        <xsl:for-each select="j:play">
          <xsl:if test="position() > 1"><xsl:text> </xsl:text></xsl:if>
          <xsl:value-of select="@turn"/>
          <xsl:choose>
            <xsl:when test="@side = 'white'">. </xsl:when>
            <xsl:otherwise>... </xsl:otherwise>
          </xsl:choose>
          <xsl:apply-templates select="." mode="cell"/>
        </xsl:for-each>
        <xsl:text>)</xsl:text>
      </div>
    </xsl:for-each>
  </xsl:template>

  <!-- One move as the notation writes it: 13/8*(2) -->
  <xsl:template match="j:move" mode="text">
    <xsl:if test="position() > 1"><xsl:text> </xsl:text></xsl:if>
    <xsl:value-of select="@from"/>
    <xsl:text>/</xsl:text>
    <xsl:value-of select="@to"/>
    <xsl:if test="@hit = 'yes'">*</xsl:if>
    <xsl:if test="@count">
      <xsl:text>(</xsl:text>
      <xsl:value-of select="@count"/>
      <xsl:text>)</xsl:text>
    </xsl:if>
  </xsl:template>

  <!-- The play in the canonical notation: 6-5: 24/18 13/8*(2)!? $1 -->
  <xsl:template match="j:play" mode="text">
    <xsl:choose>
      <xsl:when test="@dice">
        <span class="dice"><xsl:value-of select="@dice"/></span>
        <xsl:text>: </xsl:text>
      </xsl:when>
    </xsl:choose>
    <xsl:apply-templates select="j:move[not(@by)]" mode="text"/>
    <xsl:if test="not(j:move)">pass</xsl:if>
    <!-- the opponent's share of the dice (every die is used), in its own numbering -->
    <xsl:if test="j:move[@by]">
      <xsl:if test="j:move[not(@by)]"><xsl:text> </xsl:text></xsl:if>
      <span class="share">
        <xsl:text>+ </xsl:text>
        <xsl:apply-templates select="j:move[@by]" mode="text"/>
      </span>
    </xsl:if>
    <xsl:value-of select="@annotation"/>
    <xsl:for-each select="j:glyph">
      <xsl:text> $</xsl:text>
      <xsl:value-of select="@number"/>
    </xsl:for-each>
  </xsl:template>

</xsl:stylesheet>
