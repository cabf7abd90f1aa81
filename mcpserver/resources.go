package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/skillsettings"
)

// The resources' URIs are the HTTP addresses of the same documents
// ({base}/predictions.md and {base}/api/v1/settings): absolute, as MCP
// requires, and fetchable without MCP.

// SkillURI returns the URI of the skill-file resource for a base URL.
func SkillURI(baseURL string) string { return baseURL + "/" + tools.Name + ".md" }

// SettingsURI returns the URI of the settings-catalog resource for a base URL.
func SettingsURI(baseURL string) string { return baseURL + tools.PathPrefix + "/settings" }

func (a *adapter) skillResource() *mcp.Resource {
	return &mcp.Resource{
		URI:      SkillURI(a.base),
		Name:     tools.Name + ".md",
		Title:    "Skill file",
		MIMEType: "text/markdown",
		Description: "The agents' skill file (Agent Skills layout) with the default settings: how to forecast, " +
			"the forecast file format and the tools. Read it before forecasting; to write other settings into it " +
			"use the build_settings tool. " + tools.DraftedSettingsRule,
	}
}

func (a *adapter) settingsResource() *mcp.Resource {
	return &mcp.Resource{
		URI:      SettingsURI(a.base),
		Name:     "settings",
		Title:    "Settings catalog",
		MIMEType: "application/json",
		Description: "Catalog of the skill file's settings (group, kind, unit, range, options, default) and of the presets, " +
			"as a Result object. Use it to fill build_settings.",
	}
}

func (a *adapter) readSkill(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	// No settings given, so nothing to note.
	md, _ := tools.SkillFile(nil, skillsettings.Options{BaseURL: a.base, Board: a.opt.Board, BoardKeys: a.opt.BoardKeys})
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "text/markdown", Text: string(md),
	}}}, nil
}

func (a *adapter) readSettings(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	body, err := tools.SettingsCatalog().Envelope(a.terms())
	if err != nil {
		return nil, fmt.Errorf("mcpserver: settings catalog: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "application/json", Text: string(body),
	}}}, nil
}
